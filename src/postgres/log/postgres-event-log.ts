/**
 * The event log port on PostgreSQL: many writers (processes, machines) may
 * append at once; delivery ids stay unique; readers see positions in order
 * without gaps that fill in later (see `migrations.ts`: appends take a lock
 * held to commit, so positions become visible in increasing order).
 */
import { err, ok, type Result, safeTry } from 'neverthrow';
import { encodeItems } from '../../engine/append-encoding.js';
import type {
  AppendOutcome,
  AppendRefusal,
  AppendTimeout,
  BatchEventLog,
  LogRecord,
  NewRecord,
  ReadOptions,
} from '../../engine/event-log.js';
import { appendOne, firstPosition } from '../../engine/event-log.js';
import { GroupCommitQueue } from '../../engine/group-commit.js';
import { eventValueOf } from '../../engine/json-text.js';
import { closedError, EventLogReadError } from '../../engine/log-errors.js';
import { byteLimit, type WriteLimits, writeLimits } from '../../engine/log-limits.js';
import { unstorableText } from '../../engine/storable-text.js';
import { databaseError, type PostgresError } from '../postgres-error.js';
import { checkSchema, type SchemaOptions } from '../schema/migrate.js';
import { type SchemaName, schemaName } from '../schema-name.js';
import { connect, type SqlPool, type SqlPoolClient, type SqlQueryable } from '../sql-client.js';
import { ErasedAppends } from './erased-appends.js';
import {
  type EventRow,
  recordOfRow,
  type StoredItem,
  selectEventsSql,
  storedItemOf,
} from './event-rows.js';

/** Options of {@link openPostgresEventLog}. */
export interface PostgresEventLogOptions extends SchemaOptions {
  /** Largest accepted serialized event in bytes (default 256 KiB, as the file log). */
  readonly maxEventBytes?: number;
  /** Rows per query when reading (default 5,000). */
  readonly readBatchSize?: number;
  /** Clock for the default `receivedAt`; injectable for deterministic tests. */
  readonly now?: () => Date;
  /**
   * How long an append may take to commit, in ms, counted from the call
   * (default: no limit). Past it the append fails with a `timeout`
   * (`{ kind: 'timeout', timeoutMs, message }`, not a `database` error)
   * whose outcome is unknown (the rows may have committed after all: a
   * retry with the same delivery id is then a duplicate), and a group commit
   * still in flight is abandoned: its connection is destroyed so that the
   * appends queued behind it go on with another. Without it, one insert on a
   * connection gone silent (a lost NAT entry) holds every later append.
   */
  readonly appendTimeoutMs?: number;
}

/**
 * The PostgreSQL log: an event log with batch appends, shared by any number of
 * writers. Besides the refusals of every log, an append fails with `database`
 * when the server refused or could not be reached, and with `timeout` when
 * it did not commit within `appendTimeoutMs`.
 */
export interface PostgresEventLog
  extends BatchEventLog<
    AppendRefusal | AppendTimeout | Extract<PostgresError, { kind: 'database' }>
  > {
  /** The schema it reads and writes. */
  readonly schema: string;
  /**
   * Whether an append could commit now: a `SELECT 1` that takes the appends'
   * own path (their queue, their connections, their deadline), so it fails
   * while appends are stuck behind a dead connection, where a query on a
   * fresh connection would succeed. For readiness checks.
   */
  ping(): Promise<
    Result<void, AppendRefusal | AppendTimeout | Extract<PostgresError, { kind: 'database' }>>
  >;
}

interface Job {
  readonly items: readonly StoredItem[];
  /** Settles the job; later calls are ignored (a deadline may have settled it first). */
  readonly settle: (result: Result<readonly AppendOutcome[], LogError>) => void;
  /** Whether it was settled already (by its deadline): it is not sent then. */
  readonly settled: () => boolean;
}

// Delivery ids are compared by the database; one it cannot store would fail the whole group.
const storable = (id: string): boolean => unstorableText(id) === undefined;

type LogError = AppendRefusal | AppendTimeout | Extract<PostgresError, { kind: 'database' }>;

const toLogError = (error: PostgresError | AppendTimeout): LogError =>
  error.kind === 'database' || error.kind === 'timeout'
    ? error
    : { kind: 'database', code: undefined, message: error.message };

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
    const timeoutMs = options.appendTimeoutMs;
    if (timeoutMs !== undefined && !(Number.isSafeInteger(timeoutMs) && timeoutMs > 0)) {
      throw new RangeError(`appendTimeoutMs must be a positive integer (got ${timeoutMs})`);
    }
    yield* await checkSchema(pool, schema);
    return ok(logOn(pool, schema, { limits, readBatchSize, now, timeoutMs }));
  });

/** What {@link logOn} needs besides the pool and the schema. */
interface LogSettings {
  readonly limits: WriteLimits;
  readonly readBatchSize: number;
  readonly now: () => Date;
  readonly timeoutMs: number | undefined;
}

/** `1.5 s`, `5 s`: a deadline as the messages say it. */
const secondsOf = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/**
 * What the group commit remembers of the connections it used. When one went
 * silent, the others that sat idle in the pool since then may well be dead
 * too (a lost NAT entry takes them all): each would hold one more group for
 * a whole deadline. So a connection not proven alive since the last
 * abandonment is destroyed when the pool hands it out, and another taken.
 */
interface ConnectionHealth {
  /** `performance.now()` of the last abandonment (-Infinity: none yet). */
  abandonedAt: number;
  /** When each connection last completed a statement. */
  readonly aliveAt: WeakMap<object, number>;
}

/** How many suspect connections one group destroys before it uses what it gets (the pool's size is 4). */
const MAX_SUSPECTS = 8;

/** A client the pool hands out that is not suspect (see {@link ConnectionHealth}). */
const trustedClient = async (
  pool: SqlPool,
  health: ConnectionHealth,
): Promise<Result<SqlPoolClient, PostgresError>> => {
  for (let tries = 0; ; tries += 1) {
    const connected = await connect(pool);
    if (connected.isErr()) return connected;
    const aliveAt = health.aliveAt.get(connected.value);
    if (aliveAt === undefined || aliveAt >= health.abandonedAt || tries >= MAX_SUSPECTS) {
      return connected;
    }
    connected.value.release(new Error('idle since a connection went silent'));
  }
};

/**
 * Runs `run` on a client of its own and resolves within `ms` whatever the
 * network does: past it with `late()`, after destroying the client (a
 * statement on a connection gone silent would otherwise hold it, and the
 * pool would hand the dead connection out again). A client that connects
 * only after the deadline is given back unused.
 */
const onOwnClient = <T>(
  pool: SqlPool,
  health: ConnectionHealth,
  ms: number,
  run: (db: SqlQueryable) => Promise<Result<T, PostgresError>>,
  late: () => AppendTimeout,
): Promise<Result<T, PostgresError | AppendTimeout>> =>
  new Promise((resolve) => {
    let done = false;
    let client: SqlPoolClient | undefined;
    const timer = setTimeout(() => {
      done = true;
      health.abandonedAt = performance.now();
      client?.release(new Error(`no answer within ${secondsOf(ms)}`));
      resolve(err(late()));
    }, ms);
    void (async () => {
      const connected = await trustedClient(pool, health);
      if (connected.isErr()) {
        if (!done) {
          done = true;
          clearTimeout(timer);
          resolve(err(connected.error));
        }
        return;
      }
      if (done) {
        connected.value.release();
        return;
      }
      client = connected.value;
      const result = await run(client);
      // Past the deadline the timer destroyed the client and answered already.
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (result.isOk()) health.aliveAt.set(client, performance.now());
      // A connection that failed a statement may be broken (reset, terminated): not reused.
      client.release(result.isErr() ? new Error(result.error.message) : undefined);
      resolve(result);
    })();
  });

/** The statement of a {@link PostgresEventLog.ping} that no append shares. */
const pingOn = async (db: SqlQueryable): Promise<Result<AppendOutcome[], PostgresError>> => {
  try {
    await db.query('SELECT 1');
    return ok([]);
  } catch (cause) {
    return err(databaseError(cause, 'checking the connection'));
  }
};

/** The log of {@link openPostgresEventLog} on a checked schema. */
const logOn = (pool: SqlPool, schema: SchemaName, settings: LogSettings): PostgresEventLog => {
  const { limits, readBatchSize, now, timeoutMs } = settings;
  let closed = false;

  // The one deadline of an append (a serve adds none of its own): a `timeout`, so that whoever
  // answers or counts it can tell it from a refusal of the database.
  const late = (): AppendTimeout => ({
    kind: 'timeout',
    timeoutMs: timeoutMs ?? 0,
    message: `appending to ${schema}.events: no commit within ${secondsOf(timeoutMs ?? 0)} (the database or the network to it does not answer); it may or may not be stored: deliver it again`,
  });

  const health: ConnectionHealth = {
    abandonedAt: Number.NEGATIVE_INFINITY,
    aliveAt: new WeakMap(),
  };

  // Every group is erased with the ledger (names of ids forgotten before it commits).
  const erased = new ErasedAppends(schema);

  // Appends that queue while one is in flight share its statement (one commit, one fsync).
  const queue = new GroupCommitQueue<Job>(async (queued) => {
    // A job its deadline settled meanwhile was answered already: it is not sent late.
    const jobs = queued.filter((job) => !job.settled());
    if (jobs.length === 0) return;
    const items = jobs.flatMap((job) => job.items);
    const run = (db: SqlQueryable) => (items.length === 0 ? pingOn(db) : erased.store(db, items));
    const stored =
      timeoutMs === undefined
        ? await run(pool)
        : await onOwnClient(pool, health, timeoutMs, run, late);
    let offset = 0;
    for (const job of jobs) {
      const mine = stored.map((outcomes) => outcomes.slice(offset, offset + job.items.length));
      offset += job.items.length;
      job.settle(mine.mapErr(toLogError));
    }
    // The callers just answered append again from their continuations, a few
    // promise hops away; the queue would otherwise take the next group after
    // one hop, with only the first of them in it, and commit the others
    // alone right after: with 8 appenders, 4 events per commit instead of 8.
    // Each commit waits for a WAL flush, so the groups' size is the rate.
    await new Promise<void>((resolve) => setImmediate(resolve));
  });

  /** Queues `items` (none: a ping) and resolves once committed, failed, or past the deadline. */
  const enqueue = (
    items: readonly StoredItem[],
  ): Promise<Result<readonly AppendOutcome[], LogError>> =>
    new Promise((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const settle = (result: Result<readonly AppendOutcome[], LogError>): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      // Counted from the call: time spent queued behind a stuck group counts too.
      if (timeoutMs !== undefined) timer = setTimeout(() => settle(err(late())), timeoutMs);
      queue.push({ items, settle, settled: () => settled });
    });

  const appendBatch = async (
    items: readonly NewRecord[],
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
    return enqueue(stored);
  };

  async function* read(readOptions?: ReadOptions): AsyncGenerator<readonly LogRecord[]> {
    if (closed) throw new EventLogReadError(closedError('read'));
    let from = firstPosition(readOptions?.fromPosition);
    for (;;) {
      let rows: EventRow[];
      try {
        const read = selectEventsSql(schema, from, readBatchSize);
        rows = (await pool.query<EventRow>(read.text, read.values)).rows;
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
    ping: async () => {
      if (closed) return err(closedError('append'));
      return (await enqueue([])).map(() => undefined);
    },
    read,
    close: async () => {
      closed = true;
      await queue.idle();
    },
  };
};
