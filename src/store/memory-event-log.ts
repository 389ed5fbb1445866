/**
 * An in-memory `EventLog` (`signfold`) with the same semantics as the file log
 * (positions, delivery-id idempotence, limits, envelope lines) and no I/O:
 * for tests, examples and short-lived processes. Events are stored as their
 * JSON text and parsed again on read, so callers can neither mutate stored
 * events nor observe values JSON cannot represent.
 */
import { err, type Result } from 'neverthrow';
import { encodeItems } from '../engine/append-encoding.js';
import type {
  AppendOutcome,
  AppendRefusal,
  BatchEventLog,
  LogRecord,
  NewRecord,
  ReadOptions,
} from '../engine/event-log.js';
import { appendOne, firstPosition } from '../engine/event-log.js';
import { closedError, EventLogReadError } from '../engine/log-errors.js';
import { MEMORY_BATCH_SIZE, writeLimits } from '../engine/log-limits.js';
import { AppendPlanner, type AppendState, type PlannedEntry } from './append-planner.js';

/** Options for {@link createMemoryEventLog}. */
export interface MemoryEventLogOptions {
  /** Largest accepted serialized event in bytes (default 256 KiB). */
  readonly maxEventBytes?: number;
  /** Largest envelope line in bytes (default 1 MiB), as for the file log. */
  readonly maxLineBytes?: number;
  /** Clock for the default `receivedAt`; injectable for deterministic tests. */
  readonly now?: () => Date;
}

/** The memory log: an `EventLog` (`signfold`) with batch appends and its current last position. */
export interface MemoryEventLog extends BatchEventLog<AppendRefusal> {
  /** Highest position stored so far (0 when empty). */
  readonly lastPosition: number;
}

/** Builds the record `read` yields for a stored entry; `line` equals `position` here. */
const toRecord = (entry: PlannedEntry): LogRecord => ({
  kind: 'entry',
  position: entry.position,
  line: entry.position,
  receivedAt: entry.item.receivedAt,
  deliveryId: entry.item.deliveryId,
  event: JSON.parse(entry.item.eventJson) as unknown,
  raw: entry.line,
});

/**
 * Creates an empty in-memory event log. Throws a `RangeError` if
 * `maxEventBytes` or `maxLineBytes` is not a positive safe integer.
 */
export const createMemoryEventLog = (options?: MemoryEventLogOptions): MemoryEventLog => {
  const limits = writeLimits(options ?? {});
  const now = options?.now ?? (() => new Date());
  const state: AppendState = { lastPosition: 0, deliveryIds: new Map() };
  const entries: PlannedEntry[] = [];
  let closed = false;

  // Synchronous from validation to storage, so concurrent calls cannot interleave.
  const appendBatch = async (
    items: readonly NewRecord[],
  ): Promise<Result<readonly AppendOutcome[], AppendRefusal>> => {
    if (closed) return err(closedError('append'));
    return encodeItems(items, limits, now).map((encoded) => {
      const planner = new AppendPlanner(state);
      const outcomes = planner.add(encoded);
      entries.push(...planner.entries);
      planner.apply();
      return outcomes;
    });
  };

  async function* read(readOptions?: ReadOptions): AsyncGenerator<readonly LogRecord[]> {
    if (closed) throw new EventLogReadError(closedError('read'));
    const from = firstPosition(readOptions?.fromPosition);
    // Positions are dense here (position = index + 1), so start by index; snapshot the end.
    const end = entries.length;
    for (let start = from - 1; start < end; start += MEMORY_BATCH_SIZE) {
      const batch = entries.slice(start, Math.min(end, start + MEMORY_BATCH_SIZE));
      yield batch.map(toRecord);
    }
  }

  return {
    append: appendOne(appendBatch),
    appendBatch,
    read,
    get lastPosition() {
      return state.lastPosition;
    },
    close: async () => {
      closed = true;
    },
  };
};
