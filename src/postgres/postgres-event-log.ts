/**
 * The event log port on PostgreSQL: many writers (processes, machines) may
 * append at once; delivery ids stay unique; readers see positions in order
 * without gaps that fill in later (see `migrations.ts`: appends take a lock
 * held to commit, so positions become visible in increasing order).
 */
import { err, ok, type Result, safeTry } from 'neverthrow';
import { encodeItems } from '../engine/append-encoding.js';
import type {
  AppendItem,
  AppendOutcome,
  AppendRefusal,
  BatchEventLog,
  LogRecord,
  ReadOptions,
} from '../engine/event-log.js';
import { appendOne, firstPosition } from '../engine/event-log.js';
import { GroupCommitQueue } from '../engine/group-commit.js';
import { eventValueOf } from '../engine/json-text.js';
import { closedError, EventLogReadError } from '../engine/log-errors.js';
import { byteLimit, type WriteLimits, writeLimits } from '../engine/log-limits.js';
import { unstorableText } from '../engine/storable-text.js';
import {
  type EventRow,
  recordOfRow,
  type StoredItem,
  selectEventsSql,
  storedItemOf,
} from './event-rows.js';
import { checkSchema, type SchemaOptions } from './migrate.js';
import { databaseError, type PostgresError } from './postgres-error.js';
import { type SchemaName, schemaName } from './schema-name.js';
import type { SqlPool } from './sql-client.js';
import { storeItems } from './store-items.js';

/** Options of {@link openPostgresEventLog}. */
export interface PostgresEventLogOptions extends SchemaOptions {
  /** Largest accepted serialized event in bytes (default 256 KiB, as the file log). */
  readonly maxEventBytes?: number;
  /** Rows per query when reading (default 5,000). */
  readonly readBatchSize?: number;
  /** Clock for the default `receivedAt`; injectable for deterministic tests. */
  readonly now?: () => Date;
}

/**
 * The PostgreSQL log: an event log with batch appends, shared by any number of
 * writers. Besides the refusals of every log, an append fails with `database`
 * when the server refused or could not be reached.
 */
export interface PostgresEventLog
  extends BatchEventLog<AppendRefusal | Extract<PostgresError, { kind: 'database' }>> {
  /** The schema it reads and writes. */
  readonly schema: string;
}

interface Job {
  readonly items: readonly StoredItem[];
  readonly settle: (result: Result<readonly AppendOutcome[], LogError>) => void;
}

// Delivery ids are compared by the database; one it cannot store would fail the whole group.
const storable = (id: string): boolean => unstorableText(id) === undefined;

type LogError = AppendRefusal | Extract<PostgresError, { kind: 'database' }>;

const toLogError = (error: PostgresError): LogError =>
  error.kind === 'database' ? error : { kind: 'database', code: undefined, message: error.message };

/**
 * Opens the log of a migrated schema (`schema-missing`, `schema-too-old` or
 * `schema-too-new` otherwise). The pool stays the caller's: `close()` waits
 * for queued appends but does not end it. Throws `RangeError` on a
 * nonsensical size option, as the other logs do.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { migrate, openPostgresEventLog } from 'signfold/postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const migrated = await migrate(pool);
 * if (migrated.isErr()) throw new Error(migrated.error.message);
 * const opened = await openPostgresEventLog(pool);
 * if (opened.isErr()) throw new Error(opened.error.message);
 * const log = opened.value;
 * const stored = await log.append({ type: 'template-deleted' }, { deliveryId: 'd-1' });
 * console.log(stored.isOk()); // true
 * await log.close();
 * await pool.end();
 * ```
 */
export const openPostgresEventLog = async (
  pool: SqlPool,
  options: PostgresEventLogOptions = {},
): Promise<Result<PostgresEventLog, PostgresError>> =>
  safeTry(async function* () {
    const schema = yield* schemaName(options.schema);
    const limits = writeLimits({ maxEventBytes: options.maxEventBytes });
    const readBatchSize = byteLimit(options.readBatchSize, 5000, 'readBatchSize');
    const now = options.now ?? (() => new Date());
    yield* await checkSchema(pool, schema);
    return ok(logOn(pool, schema, limits, readBatchSize, now));
  });

/** The log of {@link openPostgresEventLog} on a checked schema. */
const logOn = (
  pool: SqlPool,
  schema: SchemaName,
  limits: WriteLimits,
  readBatchSize: number,
  now: () => Date,
): PostgresEventLog => {
  let closed = false;

  // Appends that queue while one is in flight share its statement (one commit, one fsync).
  const queue = new GroupCommitQueue<Job>(async (jobs) => {
    const stored = await storeItems(
      pool,
      schema,
      jobs.flatMap((job) => job.items),
    );
    let offset = 0;
    for (const job of jobs) {
      const mine = stored.map((outcomes) => outcomes.slice(offset, offset + job.items.length));
      offset += job.items.length;
      job.settle(mine.mapErr(toLogError));
    }
  });

  const appendBatch = async (
    items: readonly AppendItem[],
  ): Promise<Result<readonly AppendOutcome[], LogError>> => {
    if (closed) return err(closedError('append'));
    for (const item of items) {
      if (typeof item.deliveryId === 'string' && !storable(item.deliveryId)) {
        const message = 'deliveryId must not contain NUL or unpaired surrogates (PostgreSQL text)';
        return err({ kind: 'not-serializable', message });
      }
    }
    const encoded = encodeItems(items, limits, now);
    // No safeTry: its generator would queue the job a tick late, past a `close()` called meanwhile.
    if (encoded.isErr()) return err(encoded.error);
    if (items.length === 0) return ok([]);
    const stored = encoded.value.map((item, i) =>
      storedItemOf(item, eventValueOf(items[i]?.event)),
    );
    return new Promise((settle) => queue.push({ items: stored, settle }));
  };

  async function* read(readOptions?: ReadOptions): AsyncGenerator<readonly LogRecord[]> {
    if (closed) throw new EventLogReadError(closedError('read'));
    let from = firstPosition(readOptions?.fromPosition);
    for (;;) {
      let rows: EventRow[];
      try {
        rows = (await pool.query<EventRow>(selectEventsSql(schema), [from, readBatchSize])).rows;
      } catch (cause) {
        throw new EventLogReadError(toLogError(databaseError(cause, `reading ${schema}.events`)));
      }
      if (rows.length === 0) return;
      const records = rows.map(recordOfRow);
      yield records;
      if (rows.length < readBatchSize) return;
      from = (records.at(-1)?.position ?? from) + 1;
    }
  }

  return {
    schema,
    append: appendOne(appendBatch),
    appendBatch,
    read,
    close: async () => {
      closed = true;
      await queue.idle();
    },
  };
};
