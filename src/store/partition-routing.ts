/**
 * Cheap routing facts read from a raw log line without parsing it, for the
 * parallel replay. They are only hints: workers verify each one after parsing,
 * and any mismatch makes the replay fall back to the sequential path.
 */

const SIGN_REQUEST_KEY = '"signRequestId":';
const POSITION_PREFIX = '{"position":';

/** Reads a non-negative decimal integer at `from`, skipping spaces; `undefined` if none. */
const integerAt = (text: string, from: number): number | undefined => {
  let i = from;
  while (text.charCodeAt(i) === 32) i += 1;
  let value = 0;
  let digits = 0;
  for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) {
    value = value * 10 + (c - 48);
    digits += 1;
  }
  return digits === 0 || digits > 15 ? undefined : value;
};

/** The sign-request id a line seems to carry, or `undefined` (template events, junk). */
export const signRequestIdHint = (line: string): number | undefined => {
  const at = line.indexOf(SIGN_REQUEST_KEY);
  return at === -1 ? undefined : integerAt(line, at + SIGN_REQUEST_KEY.length);
};

/**
 * The position the sequential reader would give a line: the envelope's own
 * position when the line starts like one the log writes, else its line number.
 */
export const positionHint = (line: string, lineNo: number): number =>
  line.startsWith(POSITION_PREFIX) ? (integerAt(line, POSITION_PREFIX.length) ?? lineNo) : lineNo;

/** Which of `partitions` owns a sign request. */
export const partitionOf = (signRequestId: number, partitions: number): number =>
  Math.abs(signRequestId) % partitions;

/** Whether a line holds only whitespace (the reader skips those without a position). */
export const isBlankLine = (line: string): boolean =>
  line.length === 0 || (line.charCodeAt(0) <= 32 && line.trim() === '');
