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

/**
 * Validates a byte-size option: `undefined` means `fallback`; anything but a
 * positive safe integer (0, a negative, a fraction, `NaN`, `Infinity`) throws
 * a `RangeError` naming the option.
 */
export const byteLimit = (value: number | undefined, fallback: number, name: string): number => {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer (got ${value})`);
  }
  return value;
};

/** Resolves and validates the writer limits of a log; throws `RangeError` on a nonsensical value. */
export const writeLimits = (options: {
  readonly maxEventBytes?: number | undefined;
  readonly maxLineBytes?: number | undefined;
}): WriteLimits => ({
  maxEventBytes: byteLimit(options.maxEventBytes, DEFAULT_MAX_EVENT_BYTES, 'maxEventBytes'),
  maxLineBytes: byteLimit(options.maxLineBytes, DEFAULT_MAX_LINE_BYTES, 'maxLineBytes'),
});
