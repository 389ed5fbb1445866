/** `signfold pg work`: run a projection worker, until caught up (`--drain`) or until stopped. */

import type { Reactor } from '../../core/reactors/reactor-types.js';
import type { Upcaster } from '../../core/upcasters/upcaster-types.js';
import type { Tracing } from '../../engine/tracing.js';
import {
  createProjectionWorker,
  type PostgresError,
  type ProjectionWorker,
  type SqlPool,
  type WorkerProgress,
} from '../../postgres/index.js';
import { isRetryable } from '../../postgres/postgres-error.js';
import { startReactorsAtEnd } from '../../postgres/reactors/reactor-start.js';
import type { SchemaName } from '../../postgres/schema-name.js';
import { followAppends } from '../../postgres/worker/follow-appends.js';
import { type CliError, EXIT, type ExitCode } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import type { ProcessMetrics } from '../metrics/process-metrics.js';
import type { ProjectionMetrics } from '../metrics/projection-metrics.js';
import type { PgTarget } from '../postgres-pool.js';
import { ReplayProgress } from '../progress.js';
import { postgresFailure } from './failure.js';
import { projectionSummary } from './projection-summary.js';
import { runWorkerEffects } from './work-reactors.js';

/** The options of `pg work`. */
export interface WorkOptions {
  readonly drain: boolean;
  readonly batchSize: number | undefined;
  readonly pollMs: number | undefined;
  readonly leaseMs: number | undefined;
  readonly workerId: string | undefined;
  /** `--reactors MODULE`, loaded; empty without the flag. */
  readonly reactors: readonly Reactor[];
  /** `--upcasters MODULE`, loaded; empty without the flag. */
  readonly upcasters: readonly Upcaster[];
  /** `--tracing MODULE`, loaded: spans of batches, records and effect attempts. */
  readonly tracing?: Tracing;
  /** `--from end`: reactors without a checkpoint start at the end of the log. */
  readonly fromEnd: boolean;
  /** `--metrics-port P`, and the connect timeout its own connection uses. */
  readonly metrics?: { readonly port: number; readonly connectTimeoutMs: number } | undefined;
}

/**
 * The deadline of one query of `pg work` for a lease of `leaseMs`: a
 * statement that outlives the lease is wasted anyway (its batch is fenced
 * out once the lease lapses), so a silent connection is given up at about
 * one lease (the client's own timer adds `CLIENT_DEADLINE_SLACK_MS`). At
 * least 5 s, so that a short test lease on a loaded machine does not time
 * out healthy statements.
 */
export const workQueryTimeoutMs = (leaseMs: number | undefined): number =>
  Math.max(leaseMs ?? DEFAULT_LEASE_MS, 5000);

/** The lease of `pg work` without `--lease` (ms), as `createProjectionWorker`'s default. */
const DEFAULT_LEASE_MS = 10_000;

/**
 * The longest `pg work` runs on after SIGTERM or SIGINT (ms). It stops after
 * the batch in progress and gives running effects their grace; whatever is
 * still waiting on PostgreSQL at this bound is abandoned (the transaction of
 * a dead connection is rolled back by the server; the checkpoints keep every
 * batch committed) and the process exits 0, inside the documented 15 s.
 */
export const WORK_SHUTDOWN_BOUND_MS = 13_000;

/** The stop request of a following `pg work`: see {@link stopOnSignals}. */
export interface WorkStop {
  readonly signal: AbortSignal;
  /** Gives the signals back and disarms the bound (the command ended by itself). */
  dispose(): void;
}

/**
 * Listens for SIGINT and SIGTERM: the first aborts `signal` and arms the
 * shutdown bound ({@link WORK_SHUTDOWN_BOUND_MS}), past which the process
 * exits 0 whatever it still waits for; later signals are ignored (the bound
 * holds). The timer is unref'd: a stop that finishes in time is not delayed.
 */
export const stopOnSignals = (io: CliIO): WorkStop => {
  const controller = new AbortController();
  let bound: NodeJS.Timeout | undefined;
  const onSignal = (): void => {
    if (controller.signal.aborted) return;
    controller.abort();
    bound = setTimeout(() => {
      writeLines(io.stderr, [
        `signfold: stopped after ${WORK_SHUTDOWN_BOUND_MS / 1000} s without waiting further for PostgreSQL (every committed batch is kept)`,
      ]);
      process.exit(EXIT.ok);
    }, WORK_SHUTDOWN_BOUND_MS);
    bound.unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(bound);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
};

/**
 * The failure to report. When the server answered with a refusal retrying
 * cannot fix, the worker first gives its partitions back, so that a
 * restarted worker, or one after `pg skip`, need not wait for its leases to
 * expire; a server that does not answer is not asked again.
 */
const failed = async (worker: ProjectionWorker, error: PostgresError): Promise<CliError> => {
  if (error.kind === 'database' && error.code !== undefined && !isRetryable(error)) {
    await worker.release();
  }
  return postgresFailure(error);
};

/** Throws the failure to report (see {@link failed}). */
const fail = async (worker: ProjectionWorker, error: PostgresError): Promise<never> => {
  throw await failed(worker, error);
};

const seconds = (ms: number): string => (ms / 1000).toFixed(1);

/**
 * A worker whose tables `pg rebuild --switch` replaced has nothing left to
 * do here: one line, and exit 0, so that a supervisor restarts it (with the
 * new version) rather than reporting a failure.
 */
const retired = (error: PostgresError, io: CliIO): ExitCode | undefined => {
  if (error.kind !== 'tables-replaced') return undefined;
  writeLines(io.stderr, [`signfold pg work: ${error.message}`]);
  return EXIT.ok;
};

/**
 * Runs the worker. With `drain`, until caught up (a failure ends it). Else
 * until `signal` aborts (after the batch in progress), riding out outages:
 * a fault of the network or the server is reported once, retried with a
 * jittered backoff, and its end reported once; only a failure retrying
 * cannot fix (authentication, a missing schema, an event the database
 * refuses) ends it, with the reason.
 */
export const pgWork = async (
  pool: SqlPool,
  target: PgTarget,
  options: WorkOptions,
  io: CliIO,
  signal: AbortSignal = new AbortController().signal,
): Promise<ExitCode> => {
  let served: ProcessMetrics | undefined;
  try {
    return await projectAndReact(pool, target, options, io, signal, (metrics) => {
      served = metrics;
    });
  } finally {
    await served?.close();
  }
};

/** {@link pgWork}, handing its metrics (once served) to `serving` so that they are closed at the end. */
const projectAndReact = async (
  pool: SqlPool,
  target: PgTarget,
  options: WorkOptions,
  io: CliIO,
  signal: AbortSignal,
  serving: (metrics: ProcessMetrics) => void,
): Promise<ExitCode> => {
  let metrics: ProjectionMetrics | undefined;
  const created = await createProjectionWorker(pool, {
    ...target.schemaOptions,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(options.workerId === undefined ? {} : { workerId: options.workerId }),
    ...(options.reactors.length === 0 ? {} : { reactors: options.reactors }),
    ...(options.upcasters.length === 0 ? {} : { upcasters: options.upcasters }),
    onProjected: (stats) => metrics?.counted(stats),
    ...(options.tracing === undefined ? {} : { tracing: options.tracing }),
    onLostClaim: (partition) =>
      writeLines(io.stderr, [
        `signfold: partition ${partition} is now another worker's: this worker's batch of it was not written`,
      ]),
  });
  if (created.isErr()) throw postgresFailure(created.error);
  const worker = created.value;
  const schema = worker.schema as SchemaName; // checked by createProjectionWorker
  if (options.metrics !== undefined) {
    const { startWorkMetrics } = await import('./work-metrics.js');
    const served = await startWorkMetrics(
      target.database,
      schema,
      { ...options.metrics, reactors: options.reactors.map((reactor) => reactor.name) },
      io,
    );
    serving(served);
    metrics = served.metrics;
  }
  const reacting = options.reactors.length > 0;
  if (reacting && options.fromEnd) await startReactorsAtEnd(pool, schema, options.reactors);
  const effectsOf = (drain: boolean, effectsSignal: AbortSignal) =>
    runWorkerEffects(
      pool,
      worker,
      options.reactors,
      {
        leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
        pollMs: options.pollMs ?? 5000,
        drain,
        signal: effectsSignal,
        onAttempt: (reactor, result) => metrics?.attempted(reactor, result),
        ...(options.tracing === undefined ? {} : { tracing: options.tracing }),
      },
      io,
    );
  const progress = new ReplayProgress(io.stderr, io.now, worker.schema, 'projecting');
  let processed = 0;
  // Only a progress line needs the totals after each batch, and reading them
  // is a query per batch: a worker whose stderr is no terminal skips it.
  const onBatch =
    io.stderr.isTTY === true
      ? (batch: WorkerProgress): void => {
          processed += batch.processed;
          progress.tick(batch.checkpoint, processed);
        }
      : undefined;
  if (options.drain) {
    const drained = await worker.drain(onBatch);
    progress.finish();
    if (drained.isErr()) return retired(drained.error, io) ?? (await fail(worker, drained.error));
    if (reacting) {
      const ran = await effectsOf(true, new AbortController().signal);
      if (ran.isErr()) throw postgresFailure(ran.error);
    }
    writeLines(io.stdout, [projectionSummary(drained.value)]);
    return EXIT.ok;
  }
  // The effects stop with the worker: at a stop, and when projecting fails for good.
  const stop = new AbortController();
  const onStop = (): void => stop.abort();
  signal.addEventListener('abort', onStop);
  try {
    const effects = reacting ? effectsOf(false, stop.signal) : undefined;
    const followed = await followAppends(pool, worker, {
      signal: stop.signal,
      ...(options.pollMs === undefined ? {} : { pollIntervalMs: options.pollMs }),
      ...(onBatch === undefined ? {} : { onBatch }),
      outage: {
        down: (error) =>
          writeLines(io.stderr, [
            `signfold: projecting paused: ${error.message}; reconnecting with backoff`,
          ]),
        up: (downMs, tries) =>
          writeLines(io.stderr, [
            `signfold: projecting again after ${seconds(downMs)} s (${tries} ${tries === 1 ? 'retry' : 'retries'})`,
          ]),
      },
    });
    stop.abort();
    await effects;
    progress.finish();
    if (followed.isErr()) {
      // A stop during an outage, before any batch: nothing to sum up, nothing failed.
      if (signal.aborted && isRetryable(followed.error)) return EXIT.ok;
      return retired(followed.error, io) ?? (await fail(worker, followed.error));
    }
    writeLines(io.stdout, [projectionSummary(followed.value)]);
    return EXIT.ok;
  } finally {
    signal.removeEventListener('abort', onStop);
  }
};
