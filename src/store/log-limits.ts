/**
 * Default limits shared by the log implementations. They exist so that a
 * hostile or corrupt input produces a clear error instead of exhausting
 * memory, and so that anything a log writes can be read back with the same
 * defaults (an event limit well below the line limit leaves room for the
 * envelope).
 */

/** Longest line the reader accepts (1 MiB); longer lines become `bad-line` records, skipped in constant memory. */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

/** Largest serialized event `append` accepts (256 KiB); larger ones are rejected with `too-large`. */
export const DEFAULT_MAX_EVENT_BYTES = 256 * 1024;

/** Bytes read from a file per chunk (1 MiB): large enough that per-read overhead vanishes. */
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;

/** Number of records per batch yielded by the memory log, mirroring one file chunk. */
export const MEMORY_BATCH_SIZE = 4096;

/** Reader limits, shared by every way of reading a log. */
export interface ReadLimits {
  /** Longest accepted line in bytes, newline excluded. */
  readonly maxLineBytes: number;
}

/** Writer limits, shared by the memory and file logs. */
export interface WriteLimits extends ReadLimits {
  /** Largest accepted serialized event in bytes. */
  readonly maxEventBytes: number;
}
