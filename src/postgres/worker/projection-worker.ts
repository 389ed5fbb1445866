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
import { send } from '../sql/send.js';
import { sql } from '../sql/sql.js';
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
import { type PassClaim, projectPass } from './partition-pass.js';
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
      new PartitionWorker(pool, options, {
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

/**
 * The worker of {@link createProjectionWorker}, holding no partition yet:
 * its state (the partitions it holds and those that may have work) and what
 * it does with it. Its public members are arrow functions: a
 * caller may hand them on unbound.
 */
class PartitionWorker implements ProjectionWorker {
  readonly id: string;
  readonly schema: SchemaName;
  readonly heartbeatMs: number;
  readonly #pool: SqlPool;
  readonly #options: ProjectionWorkerOptions;
  readonly #settings: WorkerSettings;
  readonly #context: BatchContext;
  #claims: Claims = new Map();
  #lastHeartbeat = Number.NEGATIVE_INFINITY;
  /** Partitions that may have work; refilled with every held partition once all are caught up. */
  #behind = new Set<number>();

  constructor(pool: SqlPool, options: ProjectionWorkerOptions, settings: WorkerSettings) {
    this.#pool = pool;
    this.#options = options;
    this.#settings = settings;
    this.id = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.schema = settings.schema;
    this.heartbeatMs = settings.leaseMs / 4;
    this.#context = {
      schema: settings.schema,
      workerId: this.id,
      leaseMs: settings.leaseMs,
      batchSize: settings.batchSize,
      strict: options.strict ?? false,
      upcasters: options.upcasters ?? [],
      onFolded: options.onFolded,
      reactors: options.reactors,
      onProjected: options.onProjected,
      tracing: options.tracing?.enabled === true ? options.tracing : undefined,
    };
  }

  readonly runBatch = (): Promise<Result<WorkerProgress, PostgresError>> =>
    this.#guarded(`projecting a batch of ${this.schema}.events`, async () => {
      let processed = await this.#nextBatch();
      if (processed === 0) {
        // Everything held was caught up: look again at every partition next time.
        this.#behind = new Set(this.#claims.keys());
        processed = await this.#nextBatch();
        if (processed === 0) this.#behind = new Set(this.#claims.keys());
      }
      return readTotals(this.#pool, this.schema, processed);
    });

  readonly catchUp = (
    onBatch?: (progress: WorkerProgress) => void,
    signal?: MinimalAbortSignal,
  ): Promise<Result<WorkerProgress, PostgresError>> =>
    this.#guarded(`projecting ${this.schema}.events`, async () => {
      await this.#heartbeat();
      const processed = await this.#catchUpLoop(onBatch, signal);
      return readTotals(this.#pool, this.schema, processed);
    });

  readonly drain = (
    onBatch?: (progress: WorkerProgress) => void,
  ): Promise<Result<WorkerProgress, PostgresError>> =>
    this.#guarded(`projecting ${this.schema}.events`, async () => {
      const high = await send<{ high: string | null }>(
        this.#pool,
        sql`SELECT max(position) AS high FROM ${sql.id(this.schema, 'events')}`,
      );
      const target = Number(high.rows[0]?.high ?? 0);
      let processed = 0;
      await this.#heartbeat(true);
      for (;;) {
        processed += await this.#catchUpLoop(onBatch);
        const totals = await readTotals(this.#pool, this.schema, processed);
        if (totals.checkpoint >= target && !(await this.#redoHeldElsewhere())) {
          await releaseClaims(this.#pool, this.schema, this.id, this.#settings.tableOid);
          this.#claims = new Map();
          return totals;
        }
        // Others still hold partitions with work (events, or redo rows): wait, and take over any
        // whose owner stops.
        await sleep(Math.min(this.heartbeatMs, 250));
        await this.#heartbeat(true);
      }
    });

  readonly partitions = (): readonly number[] => [...this.#claims.keys()].sort((a, b) => a - b);

  readonly release = (): Promise<Result<void, PostgresError>> =>
    this.#guarded(`releasing the partitions of ${this.schema}`, async () => {
      await releaseClaims(this.#pool, this.schema, this.id, this.#settings.tableOid);
      this.#claims = new Map();
      this.#behind = new Set();
    });

  /** Renews the claims (once a heartbeat, unless `force`); newly held partitions may have work. */
  async #heartbeat(force = false): Promise<void> {
    if (!force && performance.now() - this.#lastHeartbeat < this.heartbeatMs) return;
    this.#lastHeartbeat = performance.now();
    const { schema, leaseMs, partitionTotal, tableOid } = this.#settings;
    const held = await maintainClaims(
      this.#pool,
      schema,
      this.id,
      leaseMs,
      partitionTotal,
      tableOid,
    );
    for (const partition of held.keys())
      if (!this.#claims.has(partition)) this.#behind.add(partition);
    for (const partition of this.#claims.keys())
      if (!held.has(partition)) this.#behind.delete(partition);
    this.#claims = held;
  }

  /** One batch of work, if any partition has some; the number of records processed. */
  async #nextBatch(): Promise<number> {
    await this.#heartbeat();
    for (;;) {
      const partition = this.#behind.values().next().value;
      if (partition === undefined) return 0;
      const epoch = this.#claims.get(partition);
      if (epoch === undefined) {
        this.#behind.delete(partition);
        continue;
      }
      const outcome = await this.#project(partition, epoch);
      if (outcome.kind === 'lost') {
        await this.#lost(partition, epoch);
        continue;
      }
      // Round robin: a partition with more to do goes to the back.
      this.#behind.delete(partition);
      if (!outcome.caughtUp) this.#behind.add(partition);
      if (outcome.processed > 0) return outcome.processed;
      await this.#heartbeat();
    }
  }

  /** One batch of `partition`; a refused one again event by event, to name the event refused. */
  async #project(partition: number, epoch: number): Promise<BatchOutcome> {
    try {
      return await projectPartitionBatch(this.#pool, this.#context, partition, epoch);
    } catch (cause) {
      try {
        return await retryOneAtATime(this.#pool, this.#context, partition, epoch, cause);
      } catch (failure) {
        // A batch that failed because its tables were swapped under it is no error
        // of its partition's: the worker stops.
        if (sqlState(failure) !== undefined) {
          await checkTablesKept(this.#pool, this.schema, this.#settings.tableOid);
        }
        await this.#recordError(partition, failure);
        throw failure;
      }
    }
  }

  /** Forgets a partition whose batch found its claim lost, unless only its lease lapsed. */
  async #lost(partition: number, epoch: number): Promise<void> {
    this.#claims.delete(partition);
    this.#behind.delete(partition);
    if (await stillHeld(this.#pool, { schema: this.schema, workerId: this.id, partition, epoch })) {
      // Only the lease lapsed (this worker was blocked past it) and nobody
      // claimed the partition: the next heartbeat, made at once, renews it.
      this.#lastHeartbeat = Number.NEGATIVE_INFINITY;
    } else {
      this.#options.onLostClaim?.(partition);
    }
  }

  /** Writes why `partition` failed on its row, for `pg status`. */
  async #recordError(partition: number, cause: unknown): Promise<void> {
    // A server that did not answer cannot record anything either; asking would
    // only wait out another deadline before the outage is reported.
    if (sqlState(cause) === undefined && isRetryableCause(cause)) return;
    const message = isEventFailure(cause)
      ? eventFailure(this.schema, cause).message
      : cause instanceof Error
        ? cause.message
        : String(cause);
    await send(
      this.#pool,
      sql`UPDATE ${sql.id(this.schema, 'partitions')}
             SET last_error = ${message}, last_error_at = clock_timestamp()
           WHERE partition = ${partition}`,
    ).catch(() => undefined);
  }

  /** `run`'s result, its failure as the error an operator can act on. */
  async #guarded<T>(doing: string, run: () => Promise<T>): Promise<Result<T, PostgresError>> {
    try {
      return ok(await run());
    } catch (cause) {
      if (cause instanceof TablesReplacedError) return err(tablesReplaced(cause));
      // A statement refused because the tables it named were swapped under it.
      if (sqlState(cause) === '42P01') {
        const kept = await checkTablesKept(this.#pool, this.schema, this.#settings.tableOid).then(
          () => undefined,
          (failure: unknown) => failure,
        );
        if (kept instanceof TablesReplacedError) return err(tablesReplaced(kept));
      }
      // A refusal narrowed down to one event names it and how to skip it.
      if (isEventFailure(cause)) {
        return err(eventFailure(this.schema, cause));
      }
      return err(databaseError(cause, doing));
    }
  }

  /** Batches until no held partition has work, or `signal` aborts; the records processed. */
  async #catchUpLoop(
    onBatch?: (progress: WorkerProgress) => void,
    signal?: MinimalAbortSignal,
  ): Promise<number> {
    const { reactors } = this.#context;
    // Partitions with nothing new are advanced in one statement, not a batch each; with
    // reactors every partition takes its batch (caught up, it releases the timers due).
    this.#behind =
      reactors === undefined || reactors.length === 0
        ? await partitionsWithWork(
            this.#pool,
            this.schema,
            this.id,
            this.#claims,
            this.#settings.leaseMs,
          )
        : new Set(this.#claims.keys());
    let processed = 0;
    // Passes while several partitions have a little work each; partition by partition once a
    // pass falls back, or leaves a partition with more than its share of the pass to read: over
    // a backlog, a batch of one partition writes each changed row once for more events (measured:
    // draining 200,000 events in passes took twice the time and 2.3 times the server's CPU).
    let passing = true;
    for (;;) {
      // A stop waits for the batch in progress, not for the whole backlog.
      if (signal?.aborted === true) return processed;
      const passed = passing ? await this.#pass() : undefined;
      let done: number;
      if (passed !== undefined) {
        done = passed;
        if (this.#behind.size > 0) passing = false;
      } else {
        passing = false;
        done = await this.#nextBatch();
        if (done === 0) return processed;
      }
      processed += done;
      if (onBatch !== undefined && done > 0) {
        onBatch(await readTotals(this.#pool, this.schema, processed));
      }
    }
  }

  /**
   * One pass over the held partitions with work, when there are several and
   * neither reactors nor tracing need a batch each: the records processed,
   * or `undefined` to go on partition by partition.
   */
  async #pass(): Promise<number | undefined> {
    if ((this.#context.reactors?.length ?? 0) > 0 || this.#context.tracing !== undefined) {
      return undefined;
    }
    await this.#heartbeat();
    const claims: PassClaim[] = [];
    for (const partition of this.#behind) {
      const epoch = this.#claims.get(partition);
      if (epoch !== undefined) claims.push({ partition, epoch });
    }
    if (claims.length < 2) return undefined;
    const outcome = await projectPass(this.#pool, this.#context, claims);
    if (outcome === undefined) return undefined;
    if (outcome.kind === 'lost') {
      for (const partition of outcome.partitions) {
        const epoch = this.#claims.get(partition);
        if (epoch !== undefined) await this.#lost(partition, epoch);
      }
      return 0;
    }
    for (const partition of outcome.caughtUp) this.#behind.delete(partition);
    return outcome.processed;
  }

  /**
   * Whether positions `pg rebuild --switch` gave the reactors to react to again wait in
   * partitions this worker does not hold: a partition's redo rows are taken by the catch-up of
   * its next claim, and a drain that ended with the checkpoint would leave them to a worker that
   * was killed holding the partition. Rows in partitions it holds arrived after its claim's
   * catch-up; they wait for the next claim, as they would for a following worker.
   */
  async #redoHeldElsewhere(): Promise<boolean> {
    const names = (this.#context.reactors ?? []).map((reactor) => reactor.name);
    if (names.length === 0) return false;
    const { rows } = await send<{ waiting: boolean }>(
      this.#pool,
      sql`SELECT EXISTS (
         SELECT 1 FROM ${sql.id(this.schema, 'reactor_redo')}
          WHERE reactor = ANY(${names}::text[])
            AND NOT (partition = ANY(${[...this.#claims.keys()]}::integer[]))
       ) AS waiting`,
    );
    return rows[0]?.waiting === true;
  }
}
