/**
 * Ids on the command line: events accept any safe integer as an id, 0 and
 * negatives included, so a flag naming one does too (`--sign-request -5`).
 */
import { usageError } from './cli-error.js';
import { type Flag, type FlagMeta, repeatedOption, valueOption } from './flags.js';

/** Parses a safe integer in decimal digits with an optional minus sign (`-0` is 0), or throws a usage error. */
const idOf = (value: string, flag: string): number => {
  const parsed = /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed)) {
    throw usageError(`${flag} must be an integer (got '${value}')`);
  }
  return parsed === 0 ? 0 : parsed;
};

/** A flag naming one id; `undefined` when not given. */
export const idOption = (meta: FlagMeta): Flag<number | undefined> => valueOption(meta, idOf);

/** A flag naming an id each time it is given, in the order given. */
export const idsOption = (meta: FlagMeta): Flag<readonly number[]> => repeatedOption(meta, idOf);
