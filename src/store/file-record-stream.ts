/**
 * Streams the records of an NDJSON file chunk by chunk: one large read, one
 * decode, one split and one `JSON.parse` per line, one array yielded per
 * chunk. Memory is bounded by the chunk size and the line limit, never by
 * the file size. Used by the read-only reader and by the file log itself.
 */
import type { LogRecord, ReadOptions } from '../engine/event-log.js';
import { firstPosition } from '../engine/event-log.js';
import { EventLogReadError } from '../engine/log-errors.js';
import { byteLimit, DEFAULT_CHUNK_BYTES, DEFAULT_MAX_LINE_BYTES } from '../engine/log-limits.js';
import type { FileHandleIO, FileIO } from './file-io.js';
import { nodeFileIO } from './file-io.js';
import { LineClassifier, TORN_TAIL_REASON } from './line-classifier.js';
import { LineScanner } from './line-scanner.js';
import { LineSplitter } from './line-splitter.js';
import { ioError } from './log-error.js';
import type { SplitTail } from './split-tail.js';

/** An unterminated last line that is not JSON: what a write cut short by a crash leaves. */
export type TornFragment = Extract<SplitTail, { readonly kind: 'fragment' }>;

/** Tuning shared by every file reader. */
export interface FileReadOptions extends ReadOptions {
  /** Longest accepted line in bytes (default 1 MiB); longer lines become `bad-line` records. */
  readonly maxLineBytes?: number;
  /** Bytes per read (default 1 MiB). Smaller values only help tests exercise chunk boundaries. */
  readonly chunkBytes?: number;
  /** File operations (default `node:fs/promises`). */
  readonly io?: FileIO;
}

/** Settings for {@link streamRecords}. */
export interface StreamSettings {
  readonly maxLineBytes: number;
  readonly chunkBytes: number;
  readonly fromPosition: number;
  /** Stop after this many bytes (the committed size of a log being appended to); default: to end of file. */
  readonly end?: number;
  /**
   * Receives a torn last line instead of it being reported as a `bad-line`
   * record; the file log uses this at open to set the fragment aside.
   */
  readonly onTorn?: (fragment: TornFragment) => void;
  /**
   * Parse well-formed lines straight from the bytes (default `true`); `false`
   * decodes and `JSON.parse`s every line, the reference the fast path is tested against.
   */
  readonly scan?: boolean;
  /** See `ReadOptions.lazyRaw`; default `false`. */
  readonly lazyRaw?: boolean;
}

/** Resolves reader options against the defaults; throws `RangeError` on a nonsensical value. */
export const streamSettings = (options: FileReadOptions | undefined): StreamSettings => ({
  maxLineBytes: byteLimit(options?.maxLineBytes, DEFAULT_MAX_LINE_BYTES, 'maxLineBytes'),
  chunkBytes: byteLimit(options?.chunkBytes, DEFAULT_CHUNK_BYTES, 'chunkBytes'),
  fromPosition: firstPosition(options?.fromPosition),
  lazyRaw: options?.lazyRaw === true,
});

/** Reads records from an open handle; the caller owns (and closes) the handle. */
export async function* streamRecords(
  handle: FileHandleIO,
  settings: StreamSettings,
): AsyncGenerator<readonly LogRecord[], void, undefined> {
  const classifier = new LineClassifier(settings.fromPosition);
  const scanner = settings.scan === false ? undefined : new LineScanner(true);
  const splitter = new LineSplitter(
    classifier,
    settings.maxLineBytes,
    scanner,
    settings.lazyRaw !== true,
  );
  // Two buffers, reused in turn: the next chunk is read while this one is
  // split and its records consumed. The splitter copies what it keeps and
  // records hold strings, so a buffer is free again once its records are yielded.
  const buffers = [
    Buffer.allocUnsafe(settings.chunkBytes),
    Buffer.allocUnsafe(settings.chunkBytes),
  ];
  const end = settings.end ?? Number.POSITIVE_INFINITY;
  const readAt = (buffer: Buffer, at: number): Promise<number> | undefined =>
    at < end ? handle.read(buffer, 0, Math.min(buffer.length, end - at), at) : undefined;
  let turn = 0;
  let pending = readAt(buffers[0] as Buffer, 0);
  try {
    let offset = 0;
    while (pending !== undefined) {
      const read = await pending;
      pending = undefined;
      if (read === 0) break;
      const buffer = buffers[turn] as Buffer;
      offset += read;
      turn = 1 - turn;
      pending = readAt(buffers[turn] as Buffer, offset);
      splitter.push(read === buffer.length ? buffer : buffer.subarray(0, read));
      const records = classifier.take();
      if (records.length > 0) yield records;
    }
  } finally {
    // Stopped early (or failed): let the read ahead settle before the caller closes the handle.
    await pending?.catch(() => undefined);
  }
  const tail = splitter.finish();
  if (tail.kind === 'fragment') {
    const complete = tail.text !== undefined && classifier.fragment(tail.text, tail.line);
    if (!complete) {
      if (settings.onTorn) settings.onTorn(tail);
      else classifier.badLine(tail.preview, tail.line, TORN_TAIL_REASON);
    }
  }
  const records = classifier.take();
  if (records.length > 0) yield records;
}

/**
 * Reads any NDJSON file (bare events, envelopes, or a mix) without opening it
 * for append and without ever modifying it. A torn last line is reported as
 * a `bad-line` with reason `torn tail (incomplete last line)`. Iteration
 * throws {@link EventLogReadError} (kind `io`) if the file cannot be read, and
 * a `RangeError` for an invalid option.
 */
export async function* readFileEventLog(
  path: string,
  options?: FileReadOptions,
): AsyncGenerator<readonly LogRecord[], void, undefined> {
  const settings = streamSettings(options);
  const io = options?.io ?? nodeFileIO;
  let handle: FileHandleIO;
  try {
    handle = await io.open(path, 'read');
  } catch (cause) {
    throw new EventLogReadError(ioError(cause, path, 'opening'));
  }
  try {
    yield* guardReads(streamRecords(handle, settings), path);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Re-throws file errors raised mid-stream as {@link EventLogReadError}s naming `path`. */
export async function* guardReads(
  records: AsyncGenerator<readonly LogRecord[], void, undefined>,
  path: string,
): AsyncGenerator<readonly LogRecord[], void, undefined> {
  try {
    for (;;) {
      let next: IteratorResult<readonly LogRecord[], void>;
      try {
        next = await records.next();
      } catch (cause) {
        if (cause instanceof EventLogReadError || cause instanceof RangeError) throw cause;
        throw new EventLogReadError(ioError(cause, path, 'reading'));
      }
      if (next.done === true) return;
      yield next.value;
    }
  } finally {
    // The consumer may stop early; let the inner generator finish its own cleanup.
    await records.return(undefined);
  }
}
