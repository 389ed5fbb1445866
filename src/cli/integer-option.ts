/**
 * Whole numbers on the command line (positions, counts, ports, seconds):
 * plain decimal digits only, and the bounds a flag takes, each refused in
 * its own words.
 */
import { usageError } from './cli-error.js';
import { type Flag, type FlagMeta, valueOption } from './flags.js';

/** Parses a non-negative safe integer written in decimal digits, or throws a usage error naming `flag`. */
export const wholeNumber = (value: string, flag: string): number => {
  // Number() would accept '', ' 1', '1e3' and '0x10': only plain digits are a number here.
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed)) {
    throw usageError(`${flag} must be a non-negative integer (got '${value}')`);
  }
  return parsed;
};

/** The bounds of an integer flag, and the usage error for a number outside them. */
export interface IntegerBounds {
  readonly min?: number;
  readonly max?: number;
  /** What is wrong with `value` (as given; `parsed` as read), for `flag`. */
  readonly refuse: (flag: string, value: string, parsed: number) => string;
}

/** `FLAG must be MIN to MAX (UNIT; got 'VALUE')`, how most bounds are said. */
export const fromTo = (min: number, max: number, unit?: string): IntegerBounds => ({
  min,
  max,
  refuse: (flag, value) =>
    `${flag} must be ${min} to ${max} (${unit === undefined ? '' : `${unit}; `}got '${value}')`,
});

/** A whole number within `bounds` (any, without): {@link wholeNumber}, then the bounds. */
export const integerIn =
  (bounds?: IntegerBounds) =>
  (value: string, flag: string): number => {
    const parsed = wholeNumber(value, flag);
    const { min = 0, max = Number.MAX_SAFE_INTEGER } = bounds ?? {};
    if (bounds !== undefined && (parsed < min || parsed > max)) {
      throw usageError(bounds.refuse(flag, value, parsed));
    }
    return parsed;
  };

/** An integer flag within `bounds`; `undefined` when not given. */
export const integerOption = (meta: FlagMeta, bounds?: IntegerBounds): Flag<number | undefined> =>
  valueOption(meta, integerIn(bounds));
