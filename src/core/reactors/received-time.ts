/**
 * `Date.parse(receivedAt)` for a reaction's times (timers count from it,
 * cancels compare due times with it), once per applied event that calls for
 * an effect (every reactor of a process plans the same change in turn, so
 * the last answer is kept), and for the canonical `YYYY-MM-DDTHH:MM:SS.sssZ` that logs write
 * (Date#toISOString) without `Date.parse`, which costs as much as folding
 * the event. Consecutive events mostly share their day, so the day's start
 * is kept too. Any other shape goes to `Date.parse`, which judges it.
 */

let lastText: string | undefined;
let lastTime: number | undefined;
/** `YYYYMMDD` of the last canonical time read, and the epoch ms its day starts at. */
let lastDay = Number.NaN;
let lastDayStart = 0;

/** Two decimal digits at `at`, or NaN. (`charCodeAt`: indexing and `startsWith` cost more.) */
const twoDigits = (text: string, at: number): number => {
  const high = text.charCodeAt(at) - 48;
  const low = text.charCodeAt(at + 1) - 48;
  return high >= 0 && high <= 9 && low >= 0 && low <= 9 ? high * 10 + low : Number.NaN;
};

const DASH = 45;
const COLON = 58;
const T = 84;
const DOT = 46;
const Z = 90;

const canonicalShape = (text: string): boolean =>
  text.length === 24 &&
  text.charCodeAt(4) === DASH &&
  text.charCodeAt(7) === DASH &&
  text.charCodeAt(10) === T &&
  text.charCodeAt(13) === COLON &&
  text.charCodeAt(16) === COLON &&
  text.charCodeAt(19) === DOT &&
  text.charCodeAt(23) === Z;

/** The epoch ms of a canonical time, or NaN for anything left to `Date.parse`. */
const canonicalTime = (text: string): number => {
  if (!canonicalShape(text)) return Number.NaN;
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const date = twoDigits(text, 8);
  const day = (year * 100 + month) * 100 + date;
  if (day !== lastDay) {
    // Days past 28 are left to Date.parse, which knows month lengths; years below 100 too
    // (Date.UTC maps them to 19xx). NaN never equals lastDay, so it always comes here.
    if (!(year >= 100 && month >= 1 && month <= 12 && date >= 1 && date <= 28)) return Number.NaN;
    lastDay = day;
    lastDayStart = Date.UTC(year, month - 1, date);
  }
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  const lastDigit = text.charCodeAt(22) - 48;
  const milli = twoDigits(text, 20) * 10 + lastDigit;
  // A non-digit makes its field NaN: a comparison fails, or (milliseconds) the sum is NaN.
  const valid = hour <= 23 && minute <= 59 && second <= 59 && lastDigit >= 0 && lastDigit <= 9;
  return valid ? lastDayStart + ((hour * 60 + minute) * 60 + second) * 1000 + milli : Number.NaN;
};

/** `Date.parse(receivedAt)` when finite; `undefined` for a bare line (or an unparseable time). */
export const receivedTimeOf = (receivedAt: string | undefined): number | undefined => {
  if (receivedAt === undefined) return undefined;
  if (receivedAt !== lastText) {
    const canonical = canonicalTime(receivedAt);
    const parsed = Number.isNaN(canonical) ? Date.parse(receivedAt) : canonical;
    lastText = receivedAt;
    lastTime = Number.isFinite(parsed) ? parsed : undefined;
  }
  return lastTime;
};
