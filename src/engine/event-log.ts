/**
 * The append-only event log port. The projector replays it; the store
 * implementations (memory, NDJSON file) live in `src/store/`. The log deals in
 * raw JSON values and never decodes events: an invalid event is still stored,
 * so the projector can quarantine it later and nothing accepted is lost.
 *
 * This module holds types only (no I/O), so the engine can depend on it
 * without pulling in `node:fs`.
 */
import type { Result } from 'neverthrow';

/** Per-append options. */
export interface AppendOptions {
  /**
   * An idempotency key, e.g. the webhook delivery header. An event appended
   * again with an id the log has already stored is not stored a second time;
   * the append reports `duplicate` with the original position.
   */
  readonly deliveryId?: string;
  /** When the event was received; defaults to the time of the append. */
  readonly receivedAt?: Date;
}

/** One element of a batch append: the event plus its own options. */
export interface AppendItem extends AppendOptions {
  /**
   * The raw event value; anything `JSON.stringify` accepts, or a `JsonText`
   * (see `jsonText`), whose text is stored exactly as it is.
   */
  readonly event: unknown;
}

/** What a successful append did. */
export type AppendOutcome =
  | { readonly kind: 'appended'; readonly position: number; readonly receivedAt: string }
  /** The delivery id was seen before: the event is stored once, at `position`. */
  | { readonly kind: 'duplicate'; readonly position: number };

/** Why an append (or opening a log) failed. Nothing was stored when one is returned. */
export type LogError =
  /** The file system refused, e.g. `ENOSPC`, `EACCES`, `EIO`; `code` is the errno code. */
  | {
      readonly kind: 'io';
      readonly code: string | undefined;
      readonly path: string;
      readonly message: string;
    }
  /** The serialized event (or its line) exceeds a configured limit; sizes are in bytes. */
  | {
      readonly kind: 'too-large';
      readonly size: number;
      readonly limit: number;
      readonly message: string;
    }
  /** `JSON.stringify` rejected the value (cycle, BigInt, `undefined`...) or an option was invalid. */
  | { readonly kind: 'not-serializable'; readonly message: string }
  /** The log was closed before the operation started. */
  | { readonly kind: 'closed'; readonly message: string }
  /**
   * The database refused or could not be reached (PostgreSQL log); `code` is
   * the SQLSTATE when the server sent one. Nothing was stored.
   */
  | { readonly kind: 'database'; readonly code: string | undefined; readonly message: string }
  /**
   * Another writer holds the log's lock (`<log>.lock`), in this process or
   * another; `holder` is who, when the lock file is readable. Nothing was written.
   */
  | {
      readonly kind: 'locked';
      readonly path: string;
      readonly lockPath: string;
      readonly holder: LockHolder | undefined;
      /** Age of the holder's heartbeat (its lock file's modification time), when it could be read. */
      readonly heartbeatAgeMs: number | undefined;
      readonly message: string;
    }
  /**
   * This writer's lock was removed while the log was open (by hand, or by
   * `signfold unlock`). The append was not written, and no later one will be:
   * reopen the log.
   */
  | {
      readonly kind: 'lock-lost';
      readonly path: string;
      readonly lockPath: string;
      readonly message: string;
    };

/** Who holds a file log's writer lock, as its lock file records. */
export interface LockHolder {
  /** Process id of the holder. */
  readonly pid: number;
  /** Host name of the holder's machine. */
  readonly host: string;
  /** When the holder took the lock (ISO 8601). */
  readonly since: string;
}

/**
 * One record read back from a log. `line` is the 1-based line number in the
 * file (= position for the memory log). Positions never decrease from one
 * record to the next, and strictly increase from one entry to the next. A
 * file's bad line holds no position of its own: it has the position of the
 * entry it stands before, which that entry may have too (`sharesPosition`,
 * see `docs/log-format.md`).
 */
export type LogRecord =
  | {
      readonly kind: 'entry';
      readonly position: number;
      readonly line: number;
      /** ISO-8601 time stamp from the envelope; `undefined` for a bare event line. */
      readonly receivedAt: string | undefined;
      readonly deliveryId: string | undefined;
      /** The event value exactly as parsed; not decoded or validated. */
      readonly event: unknown;
      /** The whole stored line (envelope included), without its newline. */
      readonly raw: string;
    }
  | {
      readonly kind: 'bad-line';
      readonly position: number;
      readonly line: number;
      /** The start of the line, truncated to about 200 characters. */
      readonly raw: string;
      /** Why the line is not an entry, e.g. `invalid JSON: ...`, `invalid UTF-8`. */
      readonly reason: string;
      /**
       * Set by the file reader: the line holds no position of its own. It has
       * the position of the entry after it, which that entry may have too, so
       * the projector quarantines it without moving its checkpoint past it.
       * A log whose bad lines hold their own position (PostgreSQL) leaves it out.
       */
      readonly sharesPosition?: true;
      /**
       * Set on an unterminated last line that does not parse: a write still in
       * progress (a live log) or cut short by a crash. It is not data yet, so
       * the projector neither applies nor quarantines it, nor moves past it.
       */
      readonly tornTail?: true;
    };

/** Options for {@link EventLog.read}. */
export interface ReadOptions {
  /** First position to return (inclusive), bad lines standing before it included; default 1. */
  readonly fromPosition?: number;
  /**
   * `true` lets a log produce an entry's `raw` text only when it is read, for
   * readers that seldom need it (the projector reads it only to quarantine a
   * record). Such a record may be a class instance whose `raw` is a getter on
   * its prototype: reading `record.raw` gives the same text, but spreading,
   * `Object.keys` and `JSON.stringify` do not see it. Default `false`: every
   * record is a plain object. Logs that hold the text already ignore it.
   */
  readonly lazyRaw?: boolean;
}

/** An append-only log of raw events. */
export interface EventLog {
  /**
   * Appends one event. Appends are serialized: concurrent calls get distinct,
   * increasing positions in call order. The returned promise resolves once
   * the event is as durable as the log is configured to make it.
   */
  append(event: unknown, options?: AppendOptions): Promise<Result<AppendOutcome, LogError>>;
  /** Streams records in position order, in batches (one array per chunk read) so per-record overhead stays tiny. */
  read(options?: ReadOptions): AsyncIterable<readonly LogRecord[]>;
  /** Waits for queued appends, then releases resources. Idempotent. */
  close(): Promise<void>;
}

/**
 * A log that can also append several events with a single write (and, for
 * the file log, a single fsync), which is much faster than one append each.
 */
export interface BatchEventLog extends EventLog {
  /**
   * Appends the items in order, all or nothing: if one item is invalid
   * (too large, not serializable) nothing is stored and its error is returned.
   * Outcomes are in item order; a delivery id repeated inside the batch is a
   * `duplicate` of its first occurrence.
   */
  appendBatch(items: readonly AppendItem[]): Promise<Result<readonly AppendOutcome[], LogError>>;
}
