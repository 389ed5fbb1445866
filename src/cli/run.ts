/**
 * Command dispatch and the one place every failure is caught: whatever goes
 * wrong, the user gets one line on stderr and an exit code, never a stack
 * trace (unless `SIGNFOLD_DEBUG=1`).
 */
import {
  CliError,
  describeThrown,
  EXIT,
  type ExitCode,
  oneLine,
  stackOf,
  usageError,
} from './cli-error.js';
import { type CliIO, writeLines } from './cli-io.js';
import { COMMAND_DEFINITIONS, type CommandName, overviewHelp } from './definitions/commands.js';
import { packageVersion } from './version.js';

/** A command: its arguments (after its name) and the streams, to an exit code. */
export type Command = (args: readonly string[], io: CliIO) => Promise<ExitCode>;

// Each command's modules are loaded on use: a replay does not pay for loading
// the report's (~75 ms of start-up for all of them), and only `pg` needs the
// optional peer dependency `pg`.
const COMMANDS: Readonly<Record<CommandName, Command>> = {
  replay: async (args, io) =>
    (await import('./commands/replay-command.js')).replayCommand(args, io),
  check: async (args, io) => (await import('./commands/check-command.js')).checkCommand(args, io),
  inspect: async (args, io) =>
    (await import('./commands/inspect-command.js')).inspectCommand(args, io),
  validate: async (args, io) =>
    (await import('./commands/validate-command.js')).validateCommand(args, io),
  report: async (args, io) =>
    (await import('./commands/report-command.js')).reportCommand(args, io),
  pg: async (args, io) => (await import('./pg/pg-command.js')).pgCommand(args, io),
  unlock: async (args, io) =>
    (await import('./commands/unlock-command.js')).unlockCommand(args, io),
  serve: async (args, io) => (await import('./serve/serve-command.js')).serveCommand(args, io),
  react: async (args, io) => (await import('./commands/react-command.js')).reactCommand(args, io),
  reconcile: async (args, io) =>
    (await import('./commands/reconcile-command.js')).reconcileCommand(args, io),
  effects: async (args, io) =>
    (await import('./commands/effects-command.js')).effectsCommand(args, io),
  emulate: async (args, io) =>
    (await import('./commands/emulate-command.js')).emulateCommand(args, io),
  forget: async (args, io) =>
    (await import('./commands/forget-command.js')).forgetCommand(args, io),
  'read-link': async (args, io) =>
    (await import('./commands/read-link-command.js')).readLinkCommand(args, io),
};

const isCommandName = (name: string): name is CommandName => Object.hasOwn(COMMANDS, name);

/** Whether `--help`/`-h` appears among the options (not after a `--` terminator). */
const asksForHelp = (args: readonly string[]): boolean => {
  const end = args.indexOf('--');
  const options = end === -1 ? args : args.slice(0, end);
  return options.includes('--help') || options.includes('-h');
};

/** `signfold help [COMMAND]`, `--help`, `--version` and the commands themselves. */
const dispatch = async (argv: readonly string[], io: CliIO): Promise<ExitCode> => {
  const [first, ...rest] = argv;
  if (first === undefined) throw usageError('missing command');
  if (first === '--version') {
    io.stdout.write(`${await packageVersion()}\n`);
    return EXIT.ok;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    const topic = first === 'help' ? rest[0] : undefined;
    if (topic !== undefined && !isCommandName(topic)) {
      throw usageError(`unknown command '${topic}'`);
    }
    io.stdout.write(
      `${topic === undefined ? overviewHelp() : COMMAND_DEFINITIONS[topic].help()}\n`,
    );
    return EXIT.ok;
  }
  if (first.startsWith('-')) throw usageError(`unknown option '${first}'`);
  if (!isCommandName(first)) throw usageError(`unknown command '${first}'`);
  if (asksForHelp(rest)) {
    io.stdout.write(`${COMMAND_DEFINITIONS[first].help()}\n`);
    return EXIT.ok;
  }
  try {
    return await COMMANDS[first](rest, io);
  } catch (cause) {
    // Point usage mistakes at the help of the command that was meant.
    if (cause instanceof CliError && cause.usage) {
      throw new CliError(`${cause.message} (see 'signfold ${first} --help')`, {
        exitCode: cause.exitCode,
      });
    }
    throw cause;
  }
};

/** `instanceof` that cannot throw (it does on a revoked proxy). */
const isInstance = <T>(value: unknown, type: abstract new (...args: never[]) => T): value is T => {
  try {
    return value instanceof type;
  } catch {
    return false;
  }
};

/** Reports `cause` on stderr and returns its exit code. */
const report = (cause: unknown, io: CliIO): ExitCode => {
  if (isInstance(cause, CliError)) {
    const hint = cause.usage ? ` (see 'signfold --help')` : '';
    writeLines(io.stderr, [`signfold: ${oneLine(cause.message)}${hint}`]);
    return cause.exitCode;
  }
  writeLines(io.stderr, [`signfold: unexpected error: ${describeThrown(cause)}`]);
  const stack = io.debug === true ? stackOf(cause) : undefined;
  // A stack's first line is the message, which may quote data.
  if (stack !== undefined) writeLines(io.stderr, stack.split('\n'));
  return EXIT.failure;
};

/**
 * Runs the CLI on `argv` (the words after `signfold`) and returns the exit
 * code. Never throws and never rejects.
 */
export const run = async (argv: readonly string[], io: CliIO): Promise<ExitCode> => {
  try {
    return await dispatch(argv, io);
  } catch (cause) {
    return report(cause, io);
  }
};
