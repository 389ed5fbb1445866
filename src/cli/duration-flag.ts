/** Durations on the command line: `7d`, `36h`, `90m`, `45s`, `2w`. */
import { usageError } from './cli-error.js';
import { type Flag, type FlagMeta, valueOption } from './flags.js';

const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Parses a positive whole number followed by a unit (s, m, h, d, w) into milliseconds, or throws a usage error. */
export const durationMs = (value: string, flag: string): number => {
  const match = /^(\d+)([smhdw])$/.exec(value);
  const amount = match === null ? Number.NaN : Number(match[1]);
  const ms = amount * (UNIT_MS[match?.[2] ?? ''] ?? Number.NaN);
  if (!(amount > 0) || !Number.isSafeInteger(ms)) {
    throw usageError(
      `${flag} must be a positive duration such as 7d, 36h, 90m, 45s or 2w (got '${value}')`,
    );
  }
  return ms;
};

/** The longest a duration flag takes, and the usage error for a longer one. */
export interface LongestDuration {
  readonly ms: number;
  readonly refuse: (flag: string, value: string) => string;
}

/** A duration flag, in milliseconds, at most `longest`; `undefined` when not given. */
export const durationOption = (
  meta: FlagMeta,
  longest?: LongestDuration,
): Flag<number | undefined> =>
  valueOption(meta, (value, flag) => {
    const ms = durationMs(value, flag);
    if (longest !== undefined && ms > longest.ms) throw usageError(longest.refuse(flag, value));
    return ms;
  });
