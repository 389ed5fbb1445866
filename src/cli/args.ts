/**
 * Argument parsing on top of `node:util` `parseArgs`, turning its errors
 * (which are thrown `TypeError`s with long messages) into one-line usage
 * errors, and counting the positionals (each flag reads its own value: flags.ts).
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { usageError } from './cli-error.js';

/** The option table of one command, in `parseArgs` form. */
export type OptionTable = NonNullable<ParseArgsConfig['options']>;

/** What {@link parseCommandArgs} returns: flag values by name and the positionals. */
export interface ParsedArgs {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/** `--help` / `-h`, accepted by every command. */
export const HELP_OPTION: OptionTable = { help: { type: 'boolean', short: 'h' } };

/** First sentence of a `parseArgs` message, lower-cased: `unknown option '--foo'`. */
const shorten = (message: string): string => {
  const first = message.split(/\.\s/)[0] ?? message;
  return first.charAt(0).toLowerCase() + first.slice(1);
};

/** A negative decimal integer: a value, never a flag, even though it starts with a dash. */
const NEGATIVE_INTEGER = /^-\d+$/;

/**
 * Joins `--flag -5` into `--flag=-5` for string flags: `parseArgs` refuses a
 * value starting with a dash as ambiguous, but a negative number cannot be a
 * flag. Stops at a `--` terminator.
 */
const attachNegativeValues = (args: readonly string[], options: OptionTable): string[] => {
  const joined: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    if (arg === '--') {
      joined.push(...args.slice(index));
      break;
    }
    const next = args[index + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    const isStringFlag =
      name !== undefined && Object.hasOwn(options, name) && options[name]?.type === 'string';
    if (isStringFlag && next !== undefined && NEGATIVE_INTEGER.test(next)) {
      joined.push(`${arg}=${next}`);
      index += 1;
    } else {
      joined.push(arg);
    }
  }
  return joined;
};

/**
 * Parses `args` strictly against `options` (plus `--help`). Unknown flags, a
 * missing flag value, or a value given to a boolean flag throw a usage error.
 * A string flag may take a negative integer as its next word (`--id -5`).
 */
export const parseCommandArgs = (args: readonly string[], options: OptionTable): ParsedArgs => {
  try {
    const { values, positionals } = parseArgs({
      args: attachNegativeValues(args, options),
      options: { ...HELP_OPTION, ...options },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as ParsedArgs['values'], positionals };
  } catch (cause) {
    // parseArgs only throws TypeErrors with an ERR_PARSE_ARGS_* code for bad input.
    if (cause instanceof TypeError && 'code' in cause) throw usageError(shorten(cause.message));
    throw cause;
  }
};

/** Checks the number of positionals and returns them, named in messages by `names`. */
export const expectPositionals = (
  positionals: readonly string[],
  names: readonly string[],
): string[] => {
  if (positionals.length < names.length) {
    throw usageError(`missing ${names[positionals.length]}`);
  }
  if (positionals.length > names.length) {
    throw usageError(`unexpected argument '${positionals[names.length]}'`);
  }
  return [...positionals];
};
