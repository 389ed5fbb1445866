/**
 * `signfold pg work --reactors MODULE`: the effects half of a worker. The
 * projection worker enqueues effects in its batches; this runs the
 * executor beside it, and prints one line of counts at the end.
 */

import type { Result } from 'neverthrow';
import type { Reactor } from '../../core/reactors/reactor-types.js';
import type { PostgresError, ProjectionWorker, SqlPool } from '../../postgres/index.js';
import { PgEffectExecutor } from '../../postgres/reactors/pg-effect-executor.js';
import { runEffects } from '../../postgres/reactors/run-effects.js';
import type { SchemaName } from '../../postgres/schema-name.js';
import { type CliIO, writeLines } from '../cli-io.js';

/** How long running effects may take to finish at a stop (ms), as on the file engine. */
export const PG_SHUTDOWN_GRACE_MS = 10_000;

/** Runs the effects of `reactors` until `signal` aborts, or with `drain` until none is ready or retrying. */
export const runWorkerEffects = async (
  pool: SqlPool,
  worker: ProjectionWorker,
  reactors: readonly Reactor[],
  options: {
    readonly leaseMs: number;
    readonly pollMs: number;
    readonly drain: boolean;
    readonly signal: AbortSignal;
  },
  io: CliIO,
): Promise<Result<unknown, PostgresError>> => {
  const wake = { current: (): void => undefined };
  const executor = new PgEffectExecutor(pool, {
    schema: worker.schema as SchemaName, // checked by createProjectionWorker
    workerId: worker.id,
    reactors,
    leaseMs: options.leaseMs,
    onSettled: () => wake.current(),
  });
  const ran = await runEffects(pool, executor, {
    schema: worker.schema,
    signal: options.signal,
    drain: options.drain,
    pollMs: options.pollMs,
    renewMs: Math.max(50, Math.floor(options.leaseMs / 4)),
    graceMs: PG_SHUTDOWN_GRACE_MS,
    wake,
  });
  if (ran.isOk()) {
    const { succeeded, failed, interrupted, abandoned } = ran.value;
    writeLines(io.stderr, [
      `effects: ${succeeded} succeeded, ${failed} attempts failed` +
        (interrupted + abandoned > 0
          ? `; ${interrupted + abandoned} cut short by the stop (they run again)`
          : ''),
    ]);
  }
  return ran;
};
