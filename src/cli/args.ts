/**
 * Argument parsing on top of `node:util` `parseArgs`, turning its errors
 * (which are thrown `TypeError`s with long messages) into one-line usage
 * errors, and checking the values our flags take.
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

/** A string flag's value, or `undefined` when absent. */
export const stringFlag = (parsed: ParsedArgs, name: string): string | undefined => {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
};

/** A boolean flag: `true` only when given. */
export const booleanFlag = (parsed: ParsedArgs, name: string): boolean =>
  parsed.values[name] === true;

/** Parses a non-negative safe integer written in decimal digits (a position), or throws a usage error. */
export const integerFlag = (flag: string, value: string): number => {
  // Number() would accept '', ' 1', '1e3' and '0x10': only plain digits are a position.
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed)) {
    throw usageError(`${flag} must be a non-negative integer (got '${value}')`);
  }
  return parsed;
};

/** Parses a flag restricted to a list of values, or throws a usage error. */
export const choiceFlag = <T extends string>(
  flag: string,
  value: string,
  choices: readonly T[],
): T => {
  const found = choices.find((choice) => choice === value);
  if (found === undefined) {
    throw usageError(`${flag} must be one of ${choices.join(', ')} (got '${value}')`);
  }
  return found;
};

/**
 * Parses a safe integer written in decimal digits with an optional minus
 * sign (an id: events accept any safe integer, 0 and negatives included), or
 * throws a usage error. `-0` is 0.
 */
export const idFlag = (flag: string, value: string): number => {
  const parsed = /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed)) {
    throw usageError(`${flag} must be an integer (got '${value}')`);
  }
  return parsed === 0 ? 0 : parsed;
};
