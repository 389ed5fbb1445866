/**
 * `savedTime` (docs/service-interface.md): `YYYY-MM-DD HH:MM:SS` with no time zone. The zone is
 * not published, so the value is kept as validated text and never turned into
 * a `Date` (which would silently apply the local or UTC zone).
 */
import { err, ok, type Result } from 'neverthrow';
import { type DecodeError, decodeError, describeValue } from '../decode-error.js';

declare const savedTimeBrand: unique symbol;

/**
 * A validated, zone-less `YYYY-MM-DD HH:MM:SS` calendar time. Two values from the
 * same service compare correctly as strings with `<` and `>` because every
 * field has a fixed width.
 */
export type SavedTime = string & { readonly [savedTimeBrand]: 'SavedTime' };

/** The fields of a {@link SavedTime}, as written (no zone applied). */
export interface SavedTimeParts {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

const FORMAT = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/**
 * JSON Schema pattern: checks the layout and field ranges. It cannot check the
 * number of days in a month; the decoder does.
 */
export const SAVED_TIME_PATTERN =
  '^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01]) (?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$';

const isLeapYear = (year: number): boolean =>
  year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/** Days in a month of the proleptic Gregorian calendar. */
const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

const split = (text: string): SavedTimeParts | undefined => {
  // The length test keeps the regular expression away from huge inputs.
  const match = text.length === 19 ? FORMAT.exec(text) : null;
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  if (
    year === undefined ||
    month === undefined ||
    day === undefined ||
    hour === undefined ||
    minute === undefined ||
    second === undefined
  ) {
    return undefined;
  }
  return { year, month, day, hour, minute, second };
};

/**
 * Why `text` is not a valid saved time, or `undefined` when it is. Shared by
 * {@link parseSavedTime} and the sign-request decoder.
 */
export const savedTimeProblem = (text: string): string | undefined => {
  const parts = split(text);
  if (parts === undefined) {
    return `expected "YYYY-MM-DD HH:MM:SS", got ${describeValue(text)}`;
  }
  const { year, month, day, hour, minute, second } = parts;
  if (month < 1 || month > 12) return `month ${month} is not 01–12 in ${JSON.stringify(text)}`;
  if (day < 1 || day > daysInMonth(year, month)) {
    return `day ${day} does not exist in ${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
  }
  if (hour > 23) return `hour ${hour} is not 00–23 in ${JSON.stringify(text)}`;
  if (minute > 59) return `minute ${minute} is not 00–59 in ${JSON.stringify(text)}`;
  if (second > 59) return `second ${second} is not 00–59 in ${JSON.stringify(text)}`;
  return undefined;
};

/**
 * Validates `YYYY-MM-DD HH:MM:SS` as a real calendar time (leap years included,
 * no leap seconds) without interpreting any time zone.
 *
 * @returns the text branded as {@link SavedTime}, or an `invalid-value` error with path `''`.
 */
export const parseSavedTime = (text: string): Result<SavedTime, DecodeError> => {
  const problem = savedTimeProblem(text);
  return problem === undefined
    ? ok(text as SavedTime)
    : err(decodeError('invalid-value', '', problem));
};

/**
 * Splits a {@link SavedTime} into numbers, exactly as written. No zone is
 * applied; to build a `Date`, the caller must choose the zone explicitly.
 */
export const savedTimeParts = (time: SavedTime): SavedTimeParts => {
  const parts = split(time);
  // A SavedTime only comes from parseSavedTime or the decoder, so it always splits.
  if (parts === undefined) throw new TypeError(`not a SavedTime: ${describeValue(time)}`);
  return parts;
};
