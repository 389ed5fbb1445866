/**
 * Turns lines into {@link LogRecord}s. Two line formats are accepted: a bare
 * event object (position = line number) and the envelope the log writes
 * itself, `{"position":N,"receivedAt":"…","deliveryId":"…","event":{…}}`. An
 * object is an envelope iff it has a numeric `position` and an `event` member.
 *
 * Position rule: entries have strictly increasing positions. A bare line's
 * position is its line number, unless an earlier entry already used that
 * number or a higher one (possible only when envelopes with large positions
 * precede it); then it takes the previous entry's position + 1. A bad line
 * takes the previous entry's position + 1 but does not hold it: the next
 * entry may have the same position. Were a bad line to hold a position, one
 * garbage line in a log the writer numbered 1, 2, 3… would push every later
 * envelope out of order, and a bad line sharing the position of the entry
 * before it would fall behind a checkpoint already at that entry. Its record
 * says so (`sharesPosition: true`), and the projector then never moves its
 * checkpoint for it (see `projector.ts`).
 */
import type { LogRecord } from '../engine/event-log.js';
import { previewRaw } from '../engine/quarantine.js';
import type { LineSink } from './line-splitter.js';
import { isBlankLine, whitespaceReason } from './line-whitespace.js';
import { envelopeText, ScannedEntry } from './scanned-entry.js';

/** The `reason` of a `bad-line` record for an unterminated, unparsable last line. */
export const TORN_TAIL_REASON = 'torn tail (incomplete last line)';

const BYTE_ORDER_MARK = 0xfeff;
const CARRIAGE_RETURN = 0x0d;

/** `text` without the CR of a CRLF line end: it is part of the line break, not of the line. */
const withoutCarriageReturn = (text: string): string =>
  text.charCodeAt(text.length - 1) === CARRIAGE_RETURN ? text.slice(0, -1) : text;

/** Names the JSON kind of a non-object value for a `not a JSON object` reason. */
const jsonKind = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
};

/** Accumulates records for the lines it receives; drain them with {@link LineClassifier.take}. */
export class LineClassifier implements LineSink {
  readonly #fromPosition: number;
  #records: LogRecord[] = [];
  /** Position of the last entry (0 before any): every later entry's position exceeds it. */
  #lastEntry = 0;

  /**
   * Records before `fromPosition` still advance positions but are not kept.
   * `lastEntry` is the position of the entry before the first line given, for
   * a line classified out of its file (`parseLogLine`).
   */
  constructor(fromPosition: number, lastEntry = 0) {
    this.#fromPosition = fromPosition;
    this.#lastEntry = lastEntry;
  }

  /** Returns the records collected since the last call and starts a new batch. */
  take(): LogRecord[] {
    const records = this.#records;
    this.#records = [];
    return records;
  }

  /**
   * Classifies a complete line already parsed by the reader's fast path
   * (`value` is what `JSON.parse(text)` returns, and an object). Without
   * `text`, the line is `JSON.stringify(value)` and its record a {@link ScannedEntry}.
   */
  parsed(
    value: { readonly [member: string]: unknown },
    text: string | undefined,
    lineNo: number,
  ): void {
    this.#classify(value, text, lineNo);
  }

  /**
   * Classifies a complete envelope line in the log's own member order, given
   * by its members (see `LineSink.envelope`): as {@link LineClassifier.parsed}
   * would the envelope object, without making one.
   */
  envelope(
    position: number,
    receivedAt: string,
    deliveryId: string | undefined,
    event: { readonly [member: string]: unknown },
    text: string | undefined,
    lineNo: number,
  ): void {
    if (!Number.isSafeInteger(position) || position < 1 || position <= this.#lastEntry) {
      const line = text ?? envelopeText(position, receivedAt, deliveryId, event);
      this.#envelope(
        JSON.parse(line) as { readonly [member: string]: unknown },
        position,
        text,
        lineNo,
      );
      return;
    }
    this.#lastEntry = position;
    if (position < this.#fromPosition) return;
    this.#records.push(
      text === undefined
        ? new ScannedEntry(position, lineNo, receivedAt, deliveryId, event, undefined)
        : { kind: 'entry', position, line: lineNo, receivedAt, deliveryId, event, raw: text },
    );
  }

  /** Classifies a complete line; blank lines are skipped. */
  line(text: string, lineNo: number): void {
    this.#accept(text, lineNo, false);
  }

  /**
   * Classifies an unterminated last line. Returns false, recording nothing,
   * when it is not JSON: the caller decides whether that is a torn write.
   */
  fragment(text: string, lineNo: number): boolean {
    return this.#accept(text, lineNo, true);
  }

  /**
   * Records a bad line at the position after the last entry, which it does
   * not hold (see the file comment).
   */
  badLine(preview: string, lineNo: number, reason: string): void {
    const position = this.#lastEntry + 1;
    if (position < this.#fromPosition) return;
    const raw = withoutCarriageReturn(preview);
    this.#records.push(
      reason === TORN_TAIL_REASON
        ? {
            kind: 'bad-line',
            position,
            line: lineNo,
            raw,
            reason,
            sharesPosition: true,
            tornTail: true,
          }
        : { kind: 'bad-line', position, line: lineNo, raw, reason, sharesPosition: true },
    );
  }

  #accept(input: string, lineNo: number, isFragment: boolean): boolean {
    if (input.length === 0) return true;
    const line = withoutCarriageReturn(input);
    // Editors on some platforms prefix a byte order mark, which JSON.parse rejects. Only at the
    // start of the file: anywhere else it is a character JSON does not allow there.
    const text = lineNo === 1 && line.charCodeAt(0) === BYTE_ORDER_MARK ? line.slice(1) : line;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      if (isBlankLine(text)) return true;
      if (isFragment) return false;
      const detail = cause instanceof Error ? cause.message : String(cause);
      this.badLine(previewRaw(text), lineNo, whitespaceReason(text) ?? `invalid JSON: ${detail}`);
      return true;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.badLine(previewRaw(text), lineNo, `not a JSON object (got ${jsonKind(value)})`);
      return true;
    }
    this.#classify(value as { readonly [member: string]: unknown }, text, lineNo);
    return true;
  }

  #classify(
    object: { readonly [member: string]: unknown },
    text: string | undefined,
    lineNo: number,
  ): void {
    const position = object.position;
    if (typeof position === 'number' && object.event !== undefined) {
      this.#envelope(object, position, text, lineNo);
    } else {
      this.#entry(lineNo > this.#lastEntry ? lineNo : this.#lastEntry + 1, lineNo, object, text);
    }
  }

  #envelope(
    object: { readonly [member: string]: unknown },
    position: number,
    text: string | undefined,
    lineNo: number,
  ): void {
    const invalid = !Number.isSafeInteger(position) || position < 1;
    if (invalid || position <= this.#lastEntry) {
      const reason = invalid
        ? `envelope position must be a positive integer (got ${position})`
        : `envelope position ${position} is not greater than the previous position ${this.#lastEntry}`;
      this.badLine(previewRaw(text ?? JSON.stringify(object)), lineNo, reason);
      return;
    }
    const { receivedAt, deliveryId, event } = object;
    this.#push(
      position,
      lineNo,
      typeof receivedAt === 'string' ? receivedAt : undefined,
      typeof deliveryId === 'string' ? deliveryId : undefined,
      event,
      object,
      text,
    );
  }

  #entry(
    position: number,
    lineNo: number,
    event: { readonly [member: string]: unknown },
    text: string | undefined,
  ): void {
    this.#push(position, lineNo, undefined, undefined, event, event, text);
  }

  /** Records an entry; without `text`, one whose `raw` is `JSON.stringify(parsed)`, made on demand. */
  #push(
    position: number,
    lineNo: number,
    receivedAt: string | undefined,
    deliveryId: string | undefined,
    event: unknown,
    parsed: object,
    text: string | undefined,
  ): void {
    this.#lastEntry = position;
    if (position < this.#fromPosition) return;
    this.#records.push(
      text === undefined
        ? new ScannedEntry(position, lineNo, receivedAt, deliveryId, event, parsed)
        : { kind: 'entry', position, line: lineNo, receivedAt, deliveryId, event, raw: text },
    );
  }
}
