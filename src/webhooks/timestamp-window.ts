/**
 * The window of a signed timestamp: whole seconds since the epoch, no older
 * and no further in the future than the tolerance. A delivery captured and
 * sent again later (a replay) falls out of it even with its signature intact.
 */
import { err, ok, type Result } from 'neverthrow';

// Whole seconds since the epoch, no sign, no fraction, no exponent.
const SECONDS = /^[0-9]{1,12}$/;

/** The timestamp text (trimmed) when it is whole seconds within `toleranceSeconds` of `now`; why not otherwise. */
export const timestampInWindow = (
  value: string | undefined,
  header: string,
  toleranceSeconds: number,
  now: Date,
): Result<string, string> => {
  if (value === undefined) return err(`missing timestamp header ${header}`);
  const text = value.trim();
  if (!SECONDS.test(text)) return err(`timestamp header ${header} is not whole seconds`);
  const skew = now.getTime() / 1000 - Number(text);
  if (skew > toleranceSeconds) {
    return err(
      `timestamp is ${Math.round(skew)} s old, over the tolerance of ${toleranceSeconds} s`,
    );
  }
  if (-skew > toleranceSeconds) {
    return err(
      `timestamp is ${Math.round(-skew)} s in the future, over the tolerance of ${toleranceSeconds} s`,
    );
  }
  return ok(text);
};
