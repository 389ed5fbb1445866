/**
 * Splits a stream of byte chunks into lines. Speed and bounded memory are
 * the point: each chunk is decoded to a string once and split with
 * `indexOf` (no readline, no per-line async work), and a line longer than the
 * limit is skipped while counting its bytes, so a 1 GB line costs constant
 * memory. Invalid UTF-8 is detected cheaply: only a chunk whose decoded text
 * contains U+FFFD is re-checked line by line with a fatal decoder.
 */
import { previewRaw } from '../engine/quarantine.js';
import { type LineScanner, SCANNED_ENVELOPE } from './line-scanner.js';
import type { SplitTail } from './split-tail.js';

const NEWLINE = 0x0a;
const REPLACEMENT_CHAR = '\uFFFD';
/** Bytes kept from an overlong line, enough for a ~200 character preview. */
const PREVIEW_BYTES = 800;

/** Receives the lines a {@link LineSplitter} finds, in order. */
export interface LineSink {
  /** A complete, validly encoded line within the byte limit (newline excluded). */
  line(text: string, lineNo: number): void;
  /**
   * Such a line, already parsed by the fast path: `value` equals
   * `JSON.parse(text)`. `text` is left out when the splitter was asked not to
   * build it: the line is then exactly `JSON.stringify(value)`.
   */
  parsed(
    value: { readonly [member: string]: unknown },
    text: string | undefined,
    lineNo: number,
  ): void;
  /**
   * Such a line, an envelope in the log's own member order (`position`,
   * `receivedAt`, `deliveryId` if given, `event`), given by its members: the
   * scanner's `SCANNED_ENVELOPE`. Without `text`, the line is exactly
   * `JSON.stringify` of that envelope.
   */
  envelope(
    position: number,
    receivedAt: string,
    deliveryId: string | undefined,
    event: { readonly [member: string]: unknown },
    text: string | undefined,
    lineNo: number,
  ): void;
  /** A complete line that is not usable text; `preview` is its start. */
  badLine(preview: string, lineNo: number, reason: string): void;
}

const fatalDecoder = new TextDecoder('utf-8', { fatal: true });

/** Whether `bytes` decode without error; only called when the lossy decode produced U+FFFD. */
const isValidUtf8 = (bytes: Uint8Array): boolean => {
  try {
    fatalDecoder.decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/** A reason for an overlong line. */
const tooLong = (bytes: number, limit: number): string =>
  `line too long (${bytes} bytes > limit ${limit})`;

/** Stateful splitter: feed chunks with {@link LineSplitter.push}, then call {@link LineSplitter.finish}. */
export class LineSplitter {
  readonly #sink: LineSink;
  readonly #maxLineBytes: number;
  readonly #scanner: LineScanner | undefined;
  readonly #lineText: boolean;
  /** Copies of the bytes of the unfinished line (copied: callers reuse their chunk buffer). */
  #parts: Buffer[] = [];
  #partBytes = 0;
  /** True while discarding an overlong line up to its newline. */
  #skipping = false;
  #skippedBytes = 0;
  #skipPreview = '';
  /** Number of the line being assembled. */
  #lineNo = 1;
  /** Byte offset where the line being assembled starts. */
  #lineStart = 0;
  /** Bytes pushed before the current chunk. */
  #total = 0;

  /**
   * Lines go to `sink`; lines over `maxLineBytes` bytes are reported as bad
   * lines. With a `scanner`, well-formed lines are parsed from the bytes, and
   * with `lineText` false their text is not built (see {@link LineSink.parsed}).
   */
  constructor(sink: LineSink, maxLineBytes: number, scanner?: LineScanner, lineText = true) {
    this.#sink = sink;
    this.#maxLineBytes = maxLineBytes;
    this.#scanner = scanner;
    this.#lineText = lineText;
  }

  /** Processes one chunk. The splitter does not keep a reference to `chunk`. */
  push(chunk: Buffer): void {
    let start = 0;
    if (this.#skipping || this.#partBytes > 0) {
      const newline = chunk.indexOf(NEWLINE);
      if (newline === -1) {
        this.#carry(chunk, 0);
        this.#total += chunk.length;
        return;
      }
      this.#finishCarried(chunk, newline);
      start = newline + 1;
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last >= start) {
      this.#block(chunk, start, last);
      start = last + 1;
    }
    if (start < chunk.length) this.#carry(chunk, start);
    this.#total += chunk.length;
  }

  /** Ends the input and describes the unterminated last line, if any. */
  finish(): SplitTail {
    const line = this.#lineNo;
    const offset = this.#lineStart;
    if (this.#skipping) {
      const bytes = this.#skippedBytes;
      return { kind: 'fragment', line, offset, bytes, text: undefined, preview: this.#skipPreview };
    }
    if (this.#partBytes === 0) return { kind: 'none' };
    const bytes = Buffer.concat(this.#parts, this.#partBytes);
    this.#parts = [];
    this.#partBytes = 0;
    const decoded = bytes.toString('utf8');
    const valid = !decoded.includes(REPLACEMENT_CHAR) || isValidUtf8(bytes);
    const text = valid ? decoded : undefined;
    return {
      kind: 'fragment',
      line,
      offset,
      bytes: bytes.length,
      text,
      preview: previewRaw(decoded),
    };
  }

  /** Keeps `chunk[from..]` as the start of an unfinished line, or starts skipping if it grew too long. */
  #carry(chunk: Buffer, from: number): void {
    const bytes = chunk.length - from;
    if (this.#skipping) {
      this.#skippedBytes += bytes;
      return;
    }
    if (this.#partBytes + bytes > this.#maxLineBytes) {
      this.#skipPreview = this.#previewWith(chunk.subarray(from));
      this.#skipping = true;
      this.#skippedBytes = this.#partBytes + bytes;
      this.#parts = [];
      this.#partBytes = 0;
      return;
    }
    this.#parts.push(Buffer.from(chunk.subarray(from)));
    this.#partBytes += bytes;
  }

  /** Completes the carried line with `chunk[0..newline]`. */
  #finishCarried(chunk: Buffer, newline: number): void {
    const limit = this.#maxLineBytes;
    if (this.#skipping) {
      this.#sink.badLine(
        this.#skipPreview,
        this.#lineNo,
        tooLong(this.#skippedBytes + newline, limit),
      );
      this.#skipping = false;
      this.#skipPreview = '';
    } else if (this.#partBytes + newline > limit) {
      const preview = this.#previewWith(chunk.subarray(0, newline));
      this.#sink.badLine(preview, this.#lineNo, tooLong(this.#partBytes + newline, limit));
    } else {
      this.#parts.push(chunk.subarray(0, newline));
      const line = Buffer.concat(this.#parts, this.#partBytes + newline);
      this.#bytesLine(line, 0, line.length, this.#lineNo);
    }
    this.#parts = [];
    this.#partBytes = 0;
    this.#lineNo += 1;
    this.#lineStart = this.#total + newline + 1;
  }

  /** Emits the lines of `chunk[start..last]`, where `last` is the chunk's last newline. */
  #block(chunk: Buffer, start: number, last: number): void {
    if (this.#scanner !== undefined) this.#scanBlock(chunk, start, last, this.#scanner);
    else this.#textBlock(chunk, start, last);
    this.#lineStart = this.#total + last + 1;
  }

  /**
   * Parses each line from the bytes when the scanner can, without decoding
   * the block; any other line takes the byte-checked path of `#blockBytes`.
   */
  #scanBlock(chunk: Buffer, start: number, last: number, scanner: LineScanner): void {
    const sink = this.#sink;
    const limit = this.#maxLineBytes;
    const lineText = this.#lineText;
    let lineNo = this.#lineNo;
    let from = start;
    for (;;) {
      let end: number;
      const value = scanner.scan(chunk, from, last);
      if (
        value !== undefined &&
        (scanner.end === last || chunk[scanner.end] === NEWLINE) &&
        scanner.end - from <= limit
      ) {
        end = scanner.end;
        const text = lineText
          ? chunk.toString(scanner.ascii ? 'latin1' : 'utf8', from, end)
          : undefined;
        if (value !== SCANNED_ENVELOPE) sink.parsed(value, text, lineNo);
        else {
          const { envelopePosition, envelopeReceivedAt, envelopeDeliveryId, envelopeEvent } =
            scanner;
          sink.envelope(
            envelopePosition,
            envelopeReceivedAt,
            envelopeDeliveryId,
            envelopeEvent,
            text,
            lineNo,
          );
        }
      } else {
        end = this.#checkedLine(chunk, from, last, lineNo);
      }
      lineNo += 1;
      if (end === last) break;
      from = end + 1;
    }
    this.#lineNo = lineNo;
  }

  /** Decodes the block once and splits the text (the path without a scanner). */
  #textBlock(chunk: Buffer, start: number, last: number): void {
    const text = chunk.toString('utf8', start, last);
    if (text.includes(REPLACEMENT_CHAR)) {
      this.#blockBytes(chunk, start, last);
    } else {
      const sink = this.#sink;
      const limit = this.#maxLineBytes;
      // A UTF-16 unit encodes to at most 3 bytes, so shorter lines need no byte count.
      const safeChars = Math.floor(limit / 3);
      let lineNo = this.#lineNo;
      let from = 0;
      for (;;) {
        const newline = text.indexOf('\n', from);
        const line = newline === -1 ? text.slice(from) : text.slice(from, newline);
        const bytes = line.length > safeChars ? Buffer.byteLength(line) : 0;
        if (bytes > limit) sink.badLine(previewRaw(line), lineNo, tooLong(bytes, limit));
        else sink.line(line, lineNo);
        lineNo += 1;
        if (newline === -1) break;
        from = newline + 1;
      }
      this.#lineNo = lineNo;
    }
  }

  /** Slow path for a block with U+FFFD: split on bytes so each line can be validated on its own. */
  #blockBytes(chunk: Buffer, start: number, last: number): void {
    let from = start;
    for (;;) {
      const end = this.#checkedLine(chunk, from, last, this.#lineNo);
      this.#lineNo += 1;
      if (end === last) break;
      from = end + 1;
    }
  }

  /**
   * Emits the line starting at `from` (ending at the next newline, or at
   * `last`) with its length and encoding checked; returns where it ends.
   */
  #checkedLine(chunk: Buffer, from: number, last: number, lineNo: number): number {
    const found = chunk.indexOf(NEWLINE, from);
    const end = found === -1 || found > last ? last : found;
    const limit = this.#maxLineBytes;
    if (end - from > limit) {
      const preview = previewRaw(chunk.toString('utf8', from, Math.min(end, from + PREVIEW_BYTES)));
      this.#sink.badLine(preview, lineNo, tooLong(end - from, limit));
    } else {
      this.#bytesLine(chunk, from, end, lineNo);
    }
    return end;
  }

  /** Emits `buffer[start..end]` as a line after checking its encoding. */
  #bytesLine(buffer: Buffer, start: number, end: number, lineNo: number): void {
    const text = buffer.toString('utf8', start, end);
    if (text.includes(REPLACEMENT_CHAR) && !isValidUtf8(buffer.subarray(start, end))) {
      this.#sink.badLine(previewRaw(text), lineNo, 'invalid UTF-8');
    } else {
      this.#sink.line(text, lineNo);
    }
  }

  /** A preview of the carried bytes followed by `more`, decoding only the first few hundred bytes. */
  #previewWith(more: Buffer): string {
    const head = Buffer.concat([...this.#parts, more]).subarray(0, PREVIEW_BYTES);
    return previewRaw(head.toString('utf8'));
  }
}
