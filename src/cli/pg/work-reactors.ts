/**
 * `signfold pg work --reactors MODULE`: the effects half of a worker. The
 * projection worker enqueues effects in its batches; this runs the
 * executor beside it, supervised: a failure of its loop is reported at once
 * and the loop restarted with a jittered backoff (effects never sit overdue
 * without a word), and it prints one line of counts at the end.
 */

import { err, ok, type Result } from 'neverthrow';
import type { AttemptObserver } from '../../core/reactors/attempt-result.js';
import type { Reactor } from '../../core/reactors/reactor-types.js';
import type { Tracing } from '../../engine/tracing.js';
import type { PostgresError, ProjectionWorker, SqlPool } from '../../postgres/index.js';
import { Outage, pause } from '../../postgres/outage.js';
import { PgEffectExecutor } from '../../postgres/reactors/pg-effect-executor.js';
import { type RunOutcome, runEffects } from '../../postgres/reactors/run-effects.js';
import type { SchemaName } from '../../postgres/schema-name.js';
import { type CliIO, writeLines } from '../cli-io.js';

/** How long running effects may take to finish at a stop (ms), as on the file engine. */
export const PG_SHUTDOWN_GRACE_MS = 10_000;

/** The options of {@link runWorkerEffects}. */
export interface WorkerEffectsOptions {
  readonly leaseMs: number;
  readonly pollMs: number;
  /** Until none is ready or retrying, and a failure ends it; otherwise until `signal`, restarting after failures. */
  readonly drain: boolean;
  readonly signal: AbortSignal;
  /** Told of each attempt's end (metrics). */
  readonly onAttempt?: AttemptObserver;
  /** Spans of the attempts (`--tracing`); none without. */
  readonly tracing?: Tracing;
}

const seconds = (ms: number): string => (ms / 1000).toFixed(1);

const sum = (a: RunOutcome, b: RunOutcome): RunOutcome => ({
  succeeded: a.succeeded + b.succeeded,
  failed: a.failed + b.failed,
  interrupted: a.interrupted + b.interrupted,
  abandoned: a.abandoned + b.abandoned,
});

/**
 * Runs the effects of `reactors` until `signal` aborts, or with `drain`
 * until none is ready or retrying. In follow mode every failure of the loop
 * is printed once as it happens (`effects stopped: …`), the loop restarts
 * with a new executor after a backoff, and its return is printed once
 * (`effects running again`); the result is an error only in drain mode.
 */
export const runWorkerEffects = async (
  pool: SqlPool,
  worker: ProjectionWorker,
  reactors: readonly Reactor[],
  options: WorkerEffectsOptions,
  io: CliIO,
): Promise<Result<RunOutcome, PostgresError>> => {
  const outage = new Outage({
    down: (error) =>
      writeLines(io.stderr, [
        `signfold: effects stopped: ${error.message}; restarting them with backoff`,
      ]),
    up: (downMs) =>
      writeLines(io.stderr, [`signfold: effects running again after ${seconds(downMs)} s`]),
  });
  let total: RunOutcome = { succeeded: 0, failed: 0, interrupted: 0, abandoned: 0 };
  // An executor whose loop failed may hold outcomes it could not write: the
  // next run writes them first, or (if that fails too) their leases expire
  // and the effects are claimed and run again.
  let previous: PgEffectExecutor | undefined;
  for (;;) {
    if (previous !== undefined && previous.unwritten > 0) {
      await previous.flush().catch(() => undefined);
    }
    const wake = { current: (): void => undefined };
    const executor = new PgEffectExecutor(pool, {
      schema: worker.schema as SchemaName, // checked by createProjectionWorker
      workerId: worker.id,
      reactors,
      leaseMs: options.leaseMs,
      onSettled: () => wake.current(),
      onAttempt: options.onAttempt,
      ...(options.tracing === undefined ? {} : { tracing: options.tracing }),
    });
    const ran = await runEffects(pool, executor, {
      schema: worker.schema,
      signal: options.signal,
      drain: options.drain,
      pollMs: options.pollMs,
      renewMs: Math.max(50, Math.floor(options.leaseMs / 4)),
      graceMs: PG_SHUTDOWN_GRACE_MS,
      wake,
      onTurn: () => outage.succeeded(),
    });
    if (ran.isOk()) {
      total = sum(total, ran.value);
      break;
    }
    if (options.drain) return err(ran.error);
    total = sum(total, { ...executor.counts(), abandoned: 0 });
    previous = executor;
    await pause(outage.failed(ran.error), options.signal);
    if (options.signal.aborted) break;
  }
  const { succeeded, failed, interrupted, abandoned } = total;
  writeLines(io.stderr, [
    `effects: ${succeeded} succeeded, ${failed} attempts failed` +
      (interrupted + abandoned > 0
        ? `; ${interrupted + abandoned} cut short by the stop (they run again)`
        : ''),
  ]);
  return ok(total);
};
