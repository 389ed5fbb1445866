/**
 * One stored log line, out of its file: the record the file reader makes of
 * it, by the very same classifier (envelope or bare event, blank lines, bad
 * lines and their reasons, the CR of a CRLF line end, the byte order mark of
 * line 1). Pure: no I/O, no Node built-ins.
 */
import type { LogRecord } from '../engine/event-log.js';
import { previewRaw } from '../engine/quarantine.js';
import { LineClassifier } from './line-classifier.js';

/** Where a line stands in its log, which only positions depend on. */
export interface LogLineContext {
  /**
   * The line's number in its file (1-based, default 1): a bare event's
   * position, and only line 1 may start with a byte order mark.
   */
  readonly line?: number;
  /**
   * The position of the last entry before the line (default 0: none). An
   * envelope must exceed it; a bare line, or a bad line, takes it + 1 when
   * its line number does not.
   */
  readonly lastPosition?: number;
}

const LINE_FEED = '\n';

/** `value` when it is a safe integer of at least `least`, else `fallback`. */
const integerAtLeast = (value: number | undefined, least: number, fallback: number): number =>
  value !== undefined && Number.isSafeInteger(value) && value >= least ? value : fallback;

/**
 * Decodes one stored line of an NDJSON event log (an envelope the log wrote,
 * or a bare event) into the {@link LogRecord} the file reader gives for it:
 * an `entry` with its position, `receivedAt`, `deliveryId`, parsed `event`
 * (not validated: decode it with `decodeEvent`) and `raw` text, or a
 * `bad-line` with its reason (not JSON, not an object, an envelope position
 * out of order…). `undefined` for a blank line (spaces, tabs and CRs only),
 * which the reader skips. Never throws.
 *
 * The line is taken as complete (ended by its newline, which may be left on:
 * one trailing LF or CRLF is dropped). Text that still holds a line feed is
 * several lines, not one: a bad line. The reader's byte-level checks (invalid
 * UTF-8, `maxLineBytes`) are the caller's, since the line is a string already.
 * `context` places the line in its log; a `line` below 1 or a `lastPosition`
 * below 0 (or not a safe integer) counts as the default.
 *
 * @example
 * ```ts
 * import { parseLogLine } from 'signfold/file';
 *
 * const record = parseLogLine(
 *   '{"position":8,"receivedAt":"2025-06-01T12:00:00.000Z","event":{"type":"template-deleted"}}',
 * );
 * if (record?.kind === 'entry') console.log(record.position, record.receivedAt);
 * const bad = parseLogLine('{"position":8', { line: 9, lastPosition: 8 });
 * if (bad?.kind === 'bad-line') console.log(bad.position, bad.reason.slice(0, 13));
 * ```
 */
export const parseLogLine = (text: string, context: LogLineContext = {}): LogRecord | undefined => {
  const lineNo = integerAtLeast(context.line, 1, 1);
  const classifier = new LineClassifier(1, integerAtLeast(context.lastPosition, 0, 0));
  const line = text.endsWith(LINE_FEED) ? text.slice(0, -1) : text;
  if (line.includes(LINE_FEED)) {
    classifier.badLine(previewRaw(line), lineNo, 'not one line: it holds a line feed (U+000A)');
  } else {
    classifier.line(line, lineNo);
  }
  return classifier.take()[0];
};
