/** `signfold pg work`: run a projection worker, until caught up (`--drain`) or until stopped. */

import type { Reactor } from '../../core/reactors/reactor-types.js';
import { followAppends } from '../../postgres/follow-appends.js';
import {
  createProjectionWorker,
  type PostgresError,
  type ProjectionWorker,
  type SqlPool,
  type WorkerProgress,
} from '../../postgres/index.js';
import { startReactorsAtEnd } from '../../postgres/reactors/reactor-start.js';
import type { SchemaName } from '../../postgres/schema-name.js';
import { type CliError, EXIT, type ExitCode } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import { ReplayProgress } from '../progress.js';
import { postgresFailure } from './failure.js';
import type { PgTarget } from './pool.js';
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
  /** `--from end`: reactors without a checkpoint start at the end of the log. */
  readonly fromEnd: boolean;
}

/**
 * The failure to report. When the server answered (an error with a SQLSTATE
 * that is not about the connection), the worker first gives its partitions
 * back, so that a restarted worker, or one after `pg skip`, need not wait for
 * its leases to expire; a server that does not answer is not asked again.
 */
const failed = async (worker: ProjectionWorker, error: PostgresError): Promise<CliError> => {
  const answered = error.kind === 'database' && error.code !== undefined;
  if (answered && !error.code.startsWith('08')) await worker.release();
  return postgresFailure(error);
};

/** Runs the worker; in follow mode SIGINT and SIGTERM stop it after the batch in progress. */
export const pgWork = async (
  pool: SqlPool,
  target: PgTarget,
  options: WorkOptions,
  io: CliIO,
): Promise<ExitCode> => {
  const created = await createProjectionWorker(pool, {
    ...target.schemaOptions,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(options.workerId === undefined ? {} : { workerId: options.workerId }),
    ...(options.reactors.length === 0 ? {} : { reactors: options.reactors }),
    onLostClaim: (partition) =>
      writeLines(io.stderr, [
        `signfold: partition ${partition} is now another worker's: this worker's batch of it was not written`,
      ]),
  });
  if (created.isErr()) throw postgresFailure(created.error);
  const worker = created.value;
  const reacting = options.reactors.length > 0;
  if (reacting && options.fromEnd)
    await startReactorsAtEnd(pool, worker.schema as SchemaName, options.reactors); // checked by createProjectionWorker
  const effectsOf = (drain: boolean, signal: AbortSignal) =>
    runWorkerEffects(
      pool,
      worker,
      options.reactors,
      { leaseMs: options.leaseMs ?? 10_000, pollMs: options.pollMs ?? 5000, drain, signal },
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
    if (drained.isErr()) throw await failed(worker, drained.error);
    if (reacting) {
      const ran = await effectsOf(true, new AbortController().signal);
      if (ran.isErr()) throw postgresFailure(ran.error);
    }
    writeLines(io.stdout, [projectionSummary(drained.value)]);
    return EXIT.ok;
  }
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const effects = reacting ? effectsOf(false, stop.signal) : undefined;
    const followed = await followAppends(pool, worker, {
      signal: stop.signal,
      ...(options.pollMs === undefined ? {} : { pollIntervalMs: options.pollMs }),
      ...(onBatch === undefined ? {} : { onBatch }),
    });
    // A projection failure stops the effects too: the worker exits, a supervisor restarts it.
    stop.abort();
    const ran = await effects;
    progress.finish();
    if (followed.isErr()) throw await failed(worker, followed.error);
    if (ran?.isErr()) throw postgresFailure(ran.error);
    writeLines(io.stdout, [projectionSummary(followed.value)]);
    return EXIT.ok;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
};
