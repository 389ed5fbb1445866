/**
 * The append-only event log port. The projector replays it; the store
 * implementations (memory, NDJSON file) live in `src/store/`. The log deals in
 * raw JSON values and never decodes events: an invalid event is still stored,
 * so the projector can quarantine it later and nothing accepted is lost.
 *
 * The port knows no adapter: each log's own errors are declared where they
 * are raised, and reach the engine as a {@link LogFailure}. This module does
 * no I/O, so the engine can depend on it without pulling in `node:fs`. The
 * few rules every log shares (positions, a single append as a batch of one)
 * are here too.
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
export interface NewRecord extends AppendOptions {
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

/**
 * Why an append failed, whatever stores the log: the event cannot be stored
 * (too large, not serializable) or the log is closed. An adapter's log adds
 * its own kinds where they are raised (the file log's `io`, `locked` and
 * `lock-lost`, PostgreSQL's `database`); the engine reads only `kind` and
 * `message`. Nothing was stored when one is returned.
 */
export type AppendRefusal =
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
  | { readonly kind: 'closed'; readonly message: string };

/**
 * An append answered at its deadline, before it committed: unlike a refusal,
 * whether it was stored is unknown (it may still commit). Only a log given a
 * deadline returns it (PostgreSQL's `appendTimeoutMs`; `signfold serve`
 * bounds its file log's appends with its own `--append-timeout`). Append it
 * again with the same delivery id: the retry is a `duplicate` if the first
 * one did commit.
 */
export interface AppendTimeout {
  readonly kind: 'timeout';
  /** The deadline that passed, in ms, counted from the call. */
  readonly timeoutMs: number;
  readonly message: string;
}

/** What any log's error carries: a kind to branch on and a message to show. */
export interface LogFailure {
  readonly kind: string;
  readonly message: string;
}

/** Whether `failure` is an {@link AppendTimeout}: the append was answered at its deadline. */
export const isAppendTimeout = (failure: LogFailure): failure is AppendTimeout =>
  failure.kind === 'timeout';

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
export interface EventLog<E extends LogFailure = LogFailure> {
  /**
   * Appends one event. Appends are serialized: concurrent calls get distinct,
   * increasing positions in call order. The returned promise resolves once
   * the event is as durable as the log is configured to make it.
   */
  append(event: unknown, options?: AppendOptions): Promise<Result<AppendOutcome, E>>;
  /** Streams records in position order, in batches (one array per chunk read) so per-record overhead stays tiny. */
  read(options?: ReadOptions): AsyncIterable<readonly LogRecord[]>;
  /** Waits for queued appends, then releases resources. Idempotent. */
  close(): Promise<void>;
}

/**
 * A log that can also append several events with a single write (and, for
 * the file log, a single fsync), which is much faster than one append each.
 */
export interface BatchEventLog<E extends LogFailure = LogFailure> extends EventLog<E> {
  /**
   * Appends the items in order, all or nothing: if one item is invalid
   * (too large, not serializable) nothing is stored and its error is returned.
   * Outcomes are in item order; a delivery id repeated inside the batch is a
   * `duplicate` of its first occurrence.
   */
  appendBatch(items: readonly NewRecord[]): Promise<Result<readonly AppendOutcome[], E>>;
}

/** `append` as a batch of one: the single-event append of every log with `appendBatch`. */
export const appendOne =
  <E extends LogFailure>(appendBatch: BatchEventLog<E>['appendBatch']): EventLog<E>['append'] =>
  async (event, options) => {
    const result = await appendBatch([{ ...options, event }]);
    return result.map((outcomes) => outcomes[0] as AppendOutcome);
  };

/** Positions are safe integers; NaN, fractions or Infinity would corrupt a checkpoint. */
export const checkPosition = (value: number, name: string, least = 1): void => {
  if (!Number.isSafeInteger(value) || value < least) {
    throw new RangeError(`${name} must be an integer ≥ ${least} (got ${value})`);
  }
};

/**
 * Normalizes {@link ReadOptions.fromPosition}. Positions are integers, so a
 * fractional start rounds up; a missing one means "from the beginning".
 * NaN is rejected rather than silently returning nothing.
 */
export const firstPosition = (fromPosition: number | undefined): number => {
  if (fromPosition === undefined) return 1;
  if (Number.isNaN(fromPosition)) throw new RangeError('fromPosition must be a number (got NaN)');
  return Math.max(1, Math.ceil(fromPosition));
};
