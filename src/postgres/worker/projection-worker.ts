/**
 * The projection worker. The events are split into partitions (fixed at
 * migrate time); workers share them through lease rows in PostgreSQL, each
 * taking a fair share, taking over the partitions of a worker that stopped
 * renewing its leases, and projecting its partitions batch by batch (see
 * partition-batch.ts: a batch's rows, quarantine and checkpoint commit in one
 * transaction, fenced by the claim's epoch). One worker alone holds every
 * partition and projects exactly what the sequential fold computes.
 */

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { err, ok, type Result, ResultAsync, safeTry } from 'neverthrow';
import type { MinimalAbortSignal, Reactor } from '../../core/reactors/reactor-types.js';
import type { Upcaster } from '../../core/upcasters/upcaster-types.js';
import type { ProjectorStats } from '../../engine/projector-types.js';
import type { Tracing } from '../../engine/tracing.js';
import {
  databaseError,
  isRetryableCause,
  type PostgresError,
  sqlState,
} from '../postgres-error.js';
import {
  checkTablesKept,
  partitionsTableOid,
  TablesReplacedError,
  tablesReplaced,
} from '../rebuild/replaced-tables.js';
import { checkSchema, partitionCount, type SchemaOptions } from '../schema/migrate.js';
import { type SchemaName, schemaName } from '../schema-name.js';
import type { SqlPool } from '../sql-client.js';
import { stillHeld } from './batch-write.js';
import { eventFailure, isEventFailure } from './event-failure.js';
import {
  type BatchContext,
  type BatchOutcome,
  projectPartitionBatch,
  retryOneAtATime,
} from './partition-batch.js';
import { type Claims, maintainClaims, releaseClaims } from './partition-leases.js';
import { partitionsWithWork } from './partitions-with-work.js';
import { readTotals, type WorkerProgress } from './worker-progress.js';

export type { WorkerProgress } from './worker-progress.js';

/** Options of {@link createProjectionWorker}. */
export interface ProjectionWorkerOptions extends SchemaOptions {
  /** Events per transaction (default 5,000). */
  readonly batchSize?: number;
  /** Decode events in strict mode (unknown members rejected), as `createProjector`. Default `false`. */
  readonly strict?: boolean;
  /**
   * Applied to each record before it is decoded, as `createProjector`'s (default none). A record
   * is folded in the partition of the sign request it names as stored: an upcaster must keep it.
   */
  readonly upcasters?: readonly Upcaster[];
  /**
   * How long a claim on a partition lasts without renewal, in ms (default
   * 10,000). Heartbeats renew it every quarter of that; a worker that stops
   * loses its partitions to the others at most one lease and one heartbeat later.
   */
  readonly leaseMs?: number;
  /**
   * This worker's name in the lease rows (default: host, pid and a random
   * suffix). A restarted worker that reuses its name resumes its partitions
   * at once instead of waiting for its old leases to expire.
   */
  readonly workerId?: string;
  /** Called when a partition turns out to be someone else's now (its batch, if any, was not written). */
  readonly onLostClaim?: (partition: number) => void;
  /** Called after a batch is folded, before it is written (tests pause a worker there). */
  readonly onFolded?: (partition: number) => void | Promise<void>;
  /** Reactors whose effects each batch enqueues in its transaction (docs/reactors.md). */
  readonly reactors?: readonly Reactor[];
  /**
   * Told what each committed batch counted (applied, no-ops, conflicts,
   * invalid), for this process's metrics: the `partitions` rows sum every
   * worker's, this only this worker's.
   */
  readonly onProjected?: (stats: ProjectorStats) => void;
  /**
   * Tells of each batch and each record it folds in spans (`createOtelTracing`
   * of `signfold/otel`, docs/tracing.md). Default: none.
   */
  readonly tracing?: Tracing;
}

/** The name of the (only) projection in the `checkpoints` view. */
export const PROJECTION_NAME = 'signfold';

/** A projection worker bound to one schema. */
export interface ProjectionWorker {
  /** This worker's name in the lease rows. */
  readonly id: string;
  /** The schema it projects. */
  readonly schema: string;
  /** How often it renews its leases and looks for partitions to take over (a quarter of the lease), in ms. */
  readonly heartbeatMs: number;
  /** Projects the next batch of one of its partitions that has work; `processed` 0 when none has. */
  runBatch(): Promise<Result<WorkerProgress, PostgresError>>;
  /**
   * Projects this worker's partitions until each has nothing left (heartbeats
   * and claims as it goes), or until `signal` aborts (checked between batches).
   */
  catchUp(
    onBatch?: (progress: WorkerProgress) => void,
    signal?: MinimalAbortSignal,
  ): Promise<Result<WorkerProgress, PostgresError>>;
  /**
   * Runs until every event stored when it began is projected in every
   * partition, by this worker or others (it takes over partitions whose
   * owner stops), then gives its partitions back.
   */
  drain(
    onBatch?: (progress: WorkerProgress) => void,
  ): Promise<Result<WorkerProgress, PostgresError>>;
  /** The partitions this worker holds now. */
  partitions(): readonly number[];
  /** Gives back every partition at once, for a clean exit (others need not wait for expiry). */
  release(): Promise<Result<void, PostgresError>>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Creates a worker on a migrated schema (`schema-missing` and the version
 * errors otherwise). Throws `RangeError` on a batch size or lease that is
 * not a positive integer.
 */
export const createProjectionWorker = async (
  pool: SqlPool,
  options: ProjectionWorkerOptions = {},
): Promise<Result<ProjectionWorker, PostgresError>> =>
  safeTry(async function* () {
    const schema = yield* schemaName(options.schema);
    const batchSize = options.batchSize ?? 5000;
    if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
      throw new RangeError(`batchSize must be a positive integer (got ${batchSize})`);
    }
    const leaseMs = options.leaseMs ?? 10_000;
    if (!Number.isSafeInteger(leaseMs) || leaseMs < 100) {
      throw new RangeError(`leaseMs must be an integer ≥ 100 (got ${leaseMs})`);
    }
    yield* await checkSchema(pool, schema);
    const partitionTotal = yield* ResultAsync.fromPromise(partitionCount(pool, schema), (cause) =>
      databaseError(cause, `reading the partitions of ${schema}`),
    );
    const tableOid = yield* ResultAsync.fromPromise(partitionsTableOid(pool, schema), (cause) =>
      databaseError(cause, `reading the partitions of ${schema}`),
    );
    return ok(
      workerOn(pool, options, {
        schema,
        batchSize,
        leaseMs,
        partitionTotal,
        tableOid: tableOid ?? '0',
      }),
    );
  });

/** What {@link createProjectionWorker} checked and read before its worker starts. */
interface WorkerSettings {
  readonly schema: SchemaName;
  readonly batchSize: number;
  readonly leaseMs: number;
  readonly partitionTotal: number;
  /** The OID of the partitions table it starts on (see replaced-tables.ts). */
  readonly tableOid: string;
}

/** The worker of {@link createProjectionWorker}, holding no partition yet. */
const workerOn = (
  pool: SqlPool,
  options: ProjectionWorkerOptions,
  { schema, batchSize, leaseMs, partitionTotal, tableOid }: WorkerSettings,
): ProjectionWorker => {
  const id = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const context: BatchContext = {
    schema,
    workerId: id,
    leaseMs,
    batchSize,
    strict: options.strict ?? false,
    upcasters: options.upcasters ?? [],
    onFolded: options.onFolded,
    reactors: options.reactors,
    onProjected: options.onProjected,
    tracing: options.tracing?.enabled === true ? options.tracing : undefined,
  };
  const heartbeatMs = leaseMs / 4;
  let claims: Claims = new Map();
  let lastHeartbeat = Number.NEGATIVE_INFINITY;
  /** Partitions that may have work; refilled with every held partition once all are caught up. */
  let behind = new Set<number>();

  const heartbeat = async (force = false): Promise<void> => {
    if (!force && performance.now() - lastHeartbeat < heartbeatMs) return;
    lastHeartbeat = performance.now();
    const held = await maintainClaims(pool, schema, id, leaseMs, partitionTotal, tableOid);
    for (const partition of held.keys()) if (!claims.has(partition)) behind.add(partition);
    for (const partition of claims.keys()) if (!held.has(partition)) behind.delete(partition);
    claims = held;
  };

  /** One batch of work, if any partition has some; the number of records processed. */
  const nextBatch = async (): Promise<number> => {
    await heartbeat();
    for (;;) {
      const partition = behind.values().next().value;
      if (partition === undefined) return 0;
      const epoch = claims.get(partition);
      if (epoch === undefined) {
        behind.delete(partition);
        continue;
      }
      let outcome: BatchOutcome;
      try {
        outcome = await projectPartitionBatch(pool, context, partition, epoch);
      } catch (cause) {
        try {
          outcome = await retryOneAtATime(pool, context, partition, epoch, cause);
        } catch (failure) {
          // A batch that failed because its tables were swapped under it is no error
          // of its partition's: the worker stops.
          if (sqlState(failure) !== undefined) await checkTablesKept(pool, schema, tableOid);
          await recordError(partition, failure);
          throw failure;
        }
      }
      if (outcome.kind === 'lost') {
        claims.delete(partition);
        behind.delete(partition);
        if (await stillHeld(pool, { schema, workerId: id, partition, epoch })) {
          // Only the lease lapsed (this worker was blocked past it) and nobody
          // claimed the partition: the next heartbeat, made at once, renews it.
          lastHeartbeat = Number.NEGATIVE_INFINITY;
        } else {
          options.onLostClaim?.(partition);
        }
        continue;
      }
      // Round robin: a partition with more to do goes to the back.
      behind.delete(partition);
      if (!outcome.caughtUp) behind.add(partition);
      if (outcome.processed > 0) return outcome.processed;
      await heartbeat();
    }
  };

  const recordError = async (partition: number, cause: unknown): Promise<void> => {
    // A server that did not answer cannot record anything either; asking would
    // only wait out another deadline before the outage is reported.
    if (sqlState(cause) === undefined && isRetryableCause(cause)) return;
    const message = isEventFailure(cause)
      ? eventFailure(schema, cause).message
      : cause instanceof Error
        ? cause.message
        : String(cause);
    await pool
      .query(
        `UPDATE ${schema}.partitions SET last_error = $2, last_error_at = clock_timestamp()
          WHERE partition = $1`,
        [partition, message],
      )
      .catch(() => undefined);
  };

  const guarded = async <T>(
    doing: string,
    run: () => Promise<T>,
  ): Promise<Result<T, PostgresError>> => {
    try {
      return ok(await run());
    } catch (cause) {
      if (cause instanceof TablesReplacedError) return err(tablesReplaced(cause));
      // A statement refused because the tables it named were swapped under it.
      if (sqlState(cause) === '42P01') {
        const kept = await checkTablesKept(pool, schema, tableOid).then(
          () => undefined,
          (failure: unknown) => failure,
        );
        if (kept instanceof TablesReplacedError) return err(tablesReplaced(kept));
      }
      // A refusal narrowed down to one event names it and how to skip it.
      if (isEventFailure(cause)) {
        return err(eventFailure(schema, cause));
      }
      return err(databaseError(cause, doing));
    }
  };

  const runBatch = (): Promise<Result<WorkerProgress, PostgresError>> =>
    guarded(`projecting a batch of ${schema}.events`, async () => {
      let processed = await nextBatch();
      if (processed === 0) {
        // Everything held was caught up: look again at every partition next time.
        behind = new Set(claims.keys());
        processed = await nextBatch();
        if (processed === 0) behind = new Set(claims.keys());
      }
      return readTotals(pool, schema, processed);
    });

  const catchUpLoop = async (
    onBatch?: (progress: WorkerProgress) => void,
    signal?: MinimalAbortSignal,
  ): Promise<number> => {
    // Partitions with nothing new are advanced in one statement, not a batch each; with
    // reactors every partition takes its batch (caught up, it releases the timers due).
    behind =
      context.reactors === undefined || context.reactors.length === 0
        ? await partitionsWithWork(pool, schema, id, claims, leaseMs)
        : new Set(claims.keys());
    let processed = 0;
    for (;;) {
      // A stop waits for the batch in progress, not for the whole backlog.
      if (signal?.aborted === true) return processed;
      const done = await nextBatch();
      if (done === 0) return processed;
      processed += done;
      if (onBatch !== undefined) onBatch(await readTotals(pool, schema, processed));
    }
  };

  const catchUp = (
    onBatch?: (progress: WorkerProgress) => void,
    signal?: MinimalAbortSignal,
  ): Promise<Result<WorkerProgress, PostgresError>> =>
    guarded(`projecting ${schema}.events`, async () => {
      await heartbeat();
      const processed = await catchUpLoop(onBatch, signal);
      return readTotals(pool, schema, processed);
    });

  /**
   * Whether positions `pg rebuild --switch` gave the reactors to react to again wait in
   * partitions this worker does not hold: a partition's redo rows are taken by the catch-up of
   * its next claim, and a drain that ended with the checkpoint would leave them to a worker that
   * was killed holding the partition. Rows in partitions it holds arrived after its claim's
   * catch-up; they wait for the next claim, as they would for a following worker.
   */
  const redoHeldElsewhere = async (): Promise<boolean> => {
    const names = (context.reactors ?? []).map((reactor) => reactor.name);
    if (names.length === 0) return false;
    const { rows } = await pool.query<{ waiting: boolean }>(
      `SELECT EXISTS (
         SELECT 1 FROM ${schema}.reactor_redo
          WHERE reactor = ANY($1::text[]) AND NOT (partition = ANY($2::integer[]))
       ) AS waiting`,
      [names, [...claims.keys()]],
    );
    return rows[0]?.waiting === true;
  };

  const drain = (
    onBatch?: (progress: WorkerProgress) => void,
  ): Promise<Result<WorkerProgress, PostgresError>> =>
    guarded(`projecting ${schema}.events`, async () => {
      const high = await pool.query<{ high: string | null }>(
        `SELECT max(position) AS high FROM ${schema}.events`,
      );
      const target = Number(high.rows[0]?.high ?? 0);
      let processed = 0;
      await heartbeat(true);
      for (;;) {
        processed += await catchUpLoop(onBatch);
        const totals = await readTotals(pool, schema, processed);
        if (totals.checkpoint >= target && !(await redoHeldElsewhere())) {
          await releaseClaims(pool, schema, id, tableOid);
          claims = new Map();
          return totals;
        }
        // Others still hold partitions with work (events, or redo rows): wait, and take over any
        // whose owner stops.
        await sleep(Math.min(heartbeatMs, 250));
        await heartbeat(true);
      }
    });

  const release = (): Promise<Result<void, PostgresError>> =>
    guarded(`releasing the partitions of ${schema}`, async () => {
      await releaseClaims(pool, schema, id, tableOid);
      claims = new Map();
      behind = new Set();
    });

  return {
    id,
    schema,
    heartbeatMs,
    runBatch,
    catchUp,
    drain,
    partitions: () => [...claims.keys()].sort((a, b) => a - b),
    release,
  };
};
