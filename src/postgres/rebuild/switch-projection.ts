/**
 * `pg rebuild --switch`: moves the rebuilt projection tables in under the
 * live schema's names, in one transaction T, at a position where they equal
 * the fold of every stored event:
 *
 * 1. T locks the events table against appends (SHARE ROW EXCLUSIVE: readers
 *    and the rebuild's workers, which read through views, carry on) and reads
 *    the last position; every wait of T is bounded (`lock_timeout`, and the
 *    wait for the rebuild's workers), and a wait that runs out rolls T back
 *    (the caller tries again later) rather than holding appends up.
 * 2. Once every partition of the rebuild has projected up to that position,
 *    the caller's own rebuild workers are stopped, and T moves the live
 *    projection tables to `S_retired` and the rebuilt ones into S (`ALTER …
 *    SET SCHEMA`: catalog changes only, whatever the tables' size). Readers
 *    of S wait for T's locks and then read the new tables: PostgreSQL looks a
 *    name up again after a lock wait, so none sees an empty or half-built
 *    table. The `checkpoints` view moves with its tables (a view binds to
 *    table OIDs, not names).
 * 3. Every partition is freed with an epoch above every old and rebuilt one,
 *    which fences any batch in flight of either kind of worker; workers of the
 *    old tables find their `partitions` table replaced and stop.
 * 4. Reactors react to the events applied only now: the positions in the old
 *    quarantine and not in the new one, at or below each reactor's
 *    checkpoint, become rows of `reactor_redo` (see reactor-catch-up.ts).
 *    Positions the old rules applied and the new ones apply differently are
 *    not reacted to again: reactions are about events, and those were
 *    reacted to once already.
 *
 * Events, `skipped`, the reactors' tables and the schema version stay in S.
 */
import { err, ok, type Result } from 'neverthrow';
import { databaseError, type PostgresError } from '../postgres-error.js';
import { APPEND_CHANNEL } from '../schema/migrations.js';
import type { SchemaName } from '../schema-name.js';
import { checkOut, rollBack, type SqlPool, type SqlPoolClient } from '../sql-client.js';

/** The projection tables that move; `checkpoints` is a view over `partitions`. */
export const PROJECTION_TABLES = [
  'partitions',
  'templates',
  'sign_requests',
  'participants',
  'quarantine',
  'partition_templates',
  'workers',
  'partition_count',
] as const;

/** The suffix of the schema that keeps the replaced tables (until the next switch). */
export const RETIRED_SUFFIX = '_retired';

/** Options of {@link switchProjection}. */
export interface SwitchOptions {
  readonly live: SchemaName;
  readonly rebuild: SchemaName;
  /** The bound of each lock wait of T, in ms. */
  readonly lockTimeoutMs: number;
  /** The bound of the wait for the rebuild's partitions to reach the last position, in ms. */
  readonly catchUpMs: number;
  /** Stops the caller's workers on the rebuild schema, once they are no longer needed. */
  readonly stopWorkers: () => Promise<void>;
}

/** What a switch did. */
export interface SwitchOutcome {
  readonly kind: 'switched';
  /** The last stored position: the new tables are the fold of everything up to it. */
  readonly position: number;
  readonly events: number;
  readonly partitions: number;
  /** Positions quarantined by the old tables and applied (or no-ops) in the new ones. */
  readonly newlyApplicable: number;
  /** Rows of `reactor_redo` written (one per reactor and such position it had passed). */
  readonly redoRows: number;
  /** How long appends waited on T, in ms. */
  readonly appendsWaitedMs: number;
  /** Where the old tables are now. */
  readonly retired: string;
}

/** A switch that did not happen this time; T was rolled back and appends went on. */
export interface SwitchPostponed {
  readonly kind: 'postponed';
  readonly reason: string;
  /** Whether the caller's workers were stopped (they must be started again). */
  readonly workersStopped: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A try at a lock must give way before PostgreSQL's deadlock check (default
 * `deadlock_timeout`, 1 s) runs in a reader that holds one of the tables and
 * waits for another: the reader never gets the deadlock error, T does not
 * even wait long enough to cause one.
 */
const LOCK_TRY_MS = 400;

/**
 * Runs the LOCK statement `sql` in tries of `LOCK_TRY_MS`, each under
 * a savepoint (a failed try holds nothing), for at most `boundMs`. Whether
 * the locks were taken.
 */
const lockBriefly = async (
  client: SqlPoolClient,
  sql: string,
  boundMs: number,
): Promise<boolean> => {
  const deadline = performance.now() + boundMs;
  await client.query(`SET LOCAL lock_timeout = ${LOCK_TRY_MS}`);
  for (;;) {
    await client.query('SAVEPOINT locking');
    try {
      await client.query(sql);
      await client.query(
        `RELEASE SAVEPOINT locking; SET LOCAL lock_timeout = ${Math.ceil(boundMs)}`,
      );
      return true;
    } catch (cause) {
      if ((cause as { code?: unknown }).code !== '55P03') throw cause;
      await client.query('ROLLBACK TO SAVEPOINT locking');
      if (performance.now() >= deadline) return false;
      await sleep(20 + Math.random() * 80);
    }
  }
};

/** SQLSTATE 55P03 (lock_not_available) and 40P01 (deadlock_detected): T gave way, try later. */
const GAVE_WAY = new Set(['55P03', '40P01']);

/**
 * Runs T (see the file comment) once. Resolves to `postponed` when a bound
 * ran out (a lock not granted in time, a rebuild partition still behind);
 * to an error on any other database failure (T rolled back either way).
 */
export const switchProjection = async (
  pool: SqlPool,
  options: SwitchOptions,
): Promise<Result<SwitchOutcome | SwitchPostponed, PostgresError>> => {
  let client: SqlPoolClient;
  try {
    client = await checkOut(pool);
  } catch (cause) {
    return err(databaseError(cause, 'connecting to PostgreSQL'));
  }
  let broken: Error | true | undefined;
  const state = { workersStopped: false, lockedAt: 0 };
  try {
    const switched = await switchIn(client, pool, options, state);
    if (switched.kind === 'postponed') await client.query('ROLLBACK');
    else await client.query('COMMIT');
    const waited = performance.now() - state.lockedAt;
    return ok(
      switched.kind === 'switched'
        ? { ...switched, appendsWaitedMs: Math.round(waited) }
        : switched,
    );
  } catch (cause) {
    broken = await rollBack(client, cause);
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && GAVE_WAY.has(code)) {
      return ok({
        kind: 'postponed',
        reason: `a lock was not granted within ${options.lockTimeoutMs / 1000} s (${cause instanceof Error ? cause.message : String(cause)})`,
        workersStopped: state.workersStopped,
      });
    }
    return err(databaseError(cause, `switching schema ${options.live} to ${options.rebuild}`));
  } finally {
    client.release(broken);
  }
};

/** T's statements up to its commit (or a postponement, which the caller rolls back). */
const switchIn = async (
  client: SqlPoolClient,
  pool: SqlPool,
  { live, rebuild, lockTimeoutMs, catchUpMs, stopWorkers }: SwitchOptions,
  state: { workersStopped: boolean; lockedAt: number },
): Promise<SwitchOutcome | SwitchPostponed> => {
  const retired = `${live}${RETIRED_SUFFIX}`;
  await client.query(
    `BEGIN; SET LOCAL lock_timeout = ${Math.ceil(lockTimeoutMs)}; ` +
      `SET LOCAL statement_timeout = ${Math.ceil(lockTimeoutMs + catchUpMs)}; ` +
      `SET LOCAL idle_in_transaction_session_timeout = ${Math.ceil(lockTimeoutMs + catchUpMs)}`,
  );
  await client.query(`LOCK TABLE ${live}.events IN SHARE ROW EXCLUSIVE MODE`);
  state.lockedAt = performance.now();
  const last = await client.query<{ last: string | null; events: string }>(
    `SELECT max(position) AS last, count(*) AS events FROM ${live}.events`,
  );
  const position = Number(last.rows[0]?.last ?? 0);
  const events = Number(last.rows[0]?.events ?? 0);
  // The last appends' notifications may have been missed or not yet acted on: wake every
  // rebuild worker now (outside T, which delivers nothing before it commits).
  await pool.query('SELECT pg_notify($1, $2)', [APPEND_CHANNEL, live]).catch(() => undefined);
  const deadline = performance.now() + catchUpMs;
  for (;;) {
    const behind = await client.query<{ partition: number; position: string }>(
      `SELECT partition, position FROM ${rebuild}.partitions WHERE position < $1
        ORDER BY position LIMIT 1`,
      [position],
    );
    const first = behind.rows[0];
    if (first === undefined) break;
    if (performance.now() >= deadline) {
      return {
        kind: 'postponed',
        reason: `partition ${first.partition} of ${rebuild} was at position ${first.position}, not ${position}, after ${catchUpMs / 1000} s`,
        workersStopped: false,
      };
    }
    await sleep(50);
  }
  state.workersStopped = true;
  await stopWorkers();
  const moving = (schema: string): string =>
    PROJECTION_TABLES.map((table) => `${schema}.${table}`).join(', ');
  // Every batch starts by locking its partitions row: taking `partitions` first lets
  // batches in flight finish and holds new ones off, before any other table is taken.
  const locked = await lockBriefly(
    client,
    `LOCK TABLE ${moving(live)}, ${moving(rebuild)} IN ACCESS EXCLUSIVE MODE`,
    lockTimeoutMs,
  );
  if (!locked) {
    return {
      kind: 'postponed',
      reason: `the projection tables were not free within ${lockTimeoutMs / 1000} s`,
      workersStopped: true,
    };
  }
  await client.query(`DROP SCHEMA IF EXISTS ${retired} CASCADE; CREATE SCHEMA ${retired}`);
  const moves = [
    ...PROJECTION_TABLES.map((table) => `ALTER TABLE ${live}.${table} SET SCHEMA ${retired};`),
    `ALTER VIEW ${live}.checkpoints SET SCHEMA ${retired};`,
    ...PROJECTION_TABLES.map((table) => `ALTER TABLE ${rebuild}.${table} SET SCHEMA ${live};`),
    `ALTER VIEW ${rebuild}.checkpoints SET SCHEMA ${live};`,
  ];
  await client.query(moves.join('\n'));
  await client.query(
    `UPDATE ${live}.partitions SET owner = NULL, lease_until = NULL,
            epoch = greatest((SELECT max(epoch) FROM ${retired}.partitions),
                             (SELECT max(epoch) FROM ${live}.partitions)) + 1;
     DELETE FROM ${live}.workers;`,
  );
  const newly = await client.query<{ n: string }>(
    `SELECT count(*) AS n FROM ${retired}.quarantine AS q
      WHERE NOT EXISTS (SELECT 1 FROM ${live}.quarantine AS n WHERE n.position = q.position)`,
  );
  // Template events are reacted to by partition 0 alone, as the batches do.
  const redo = await client.query(
    `INSERT INTO ${live}.reactor_redo (reactor, partition, position)
     SELECT rp.reactor, rp.partition, q.position
       FROM ${retired}.quarantine AS q
       JOIN ${live}.events AS e ON e.position = q.position
       JOIN ${live}.reactor_progress AS rp ON rp.partition = greatest(e.partition, 0)
      WHERE q.position <= rp.position
        AND NOT EXISTS (SELECT 1 FROM ${live}.quarantine AS n WHERE n.position = q.position)
     ON CONFLICT DO NOTHING`,
  );
  await client.query(`DROP SCHEMA ${rebuild} CASCADE`);
  const partitions = await client.query<{ n: string }>(
    `SELECT count(*) AS n FROM ${live}.partitions`,
  );
  return {
    kind: 'switched',
    position,
    events,
    partitions: Number(partitions.rows[0]?.n ?? 0),
    newlyApplicable: Number(newly.rows[0]?.n ?? 0),
    redoRows: redo.rowCount ?? 0,
    appendsWaitedMs: 0,
    retired,
  };
};
