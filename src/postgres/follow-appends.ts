/**
 * Live projection: catch up, then sleep until an append is announced
 * (`LISTEN`; the events table `NOTIFY`s on every insert) or a slow poll
 * interval passes, as a fallback for a missed notification; until stopped.
 */
import { err, type Result, safeTry } from 'neverthrow';
import { APPEND_CHANNEL } from './migrations.js';
import { databaseError, type PostgresError } from './postgres-error.js';
import type { ProjectionWorker, WorkerProgress } from './projection-worker.js';
import { connect, type SqlPool, type SqlPoolClient } from './sql-client.js';

/** Options of {@link followAppends}. */
export interface FollowOptions {
  /** Stops following once aborted (after the batch in progress commits). */
  readonly signal: AbortSignal;
  /** Longest sleep without a notification, in ms (default 5,000). */
  readonly pollIntervalMs?: number;
  /** Called after each batch that projected something. */
  readonly onBatch?: (progress: WorkerProgress) => void;
}

interface Notification {
  readonly channel: string;
  readonly payload?: string;
}

type ListeningClient = SqlPoolClient & {
  on(event: 'notification', listener: (message: Notification) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
};

/** {@link followAppends} on a client of its own, which it releases at the end. */
const followOn = async (
  listener: ListeningClient,
  worker: ProjectionWorker,
  options: FollowOptions,
): Promise<Result<WorkerProgress, PostgresError>> => {
  // The worker's own schema: a notification of any other is not for it.
  const { schema } = worker;
  const pollMs = options.pollIntervalMs ?? 5000;
  // Notifications come at any time, also while a catch-up runs, when no one
  // sleeps to be woken: each one bumps `announced`, and the loop sleeps only
  // if nothing was announced since its last catch-up began. A catch-up that
  // begins after a notification sees that append (it is committed).
  let announced = 0;
  let wake: (() => void) | undefined;
  let broken: Error | undefined;
  listener.on('notification', (message) => {
    if (message.channel !== APPEND_CHANNEL || message.payload !== schema) return;
    announced += 1;
    wake?.();
  });
  listener.on('error', (error) => {
    broken = error;
    wake?.();
  });
  const onAbort = (): void => wake?.();
  options.signal.addEventListener('abort', onAbort);
  try {
    await listener.query(`LISTEN ${APPEND_CHANNEL}`);
    for (;;) {
      const seen = announced;
      const caughtUp = await worker.catchUp(options.onBatch);
      if (caughtUp.isErr() || options.signal.aborted) return caughtUp;
      if (broken !== undefined) return err(databaseError(broken, 'listening for appends'));
      await new Promise<void>((resolve) => {
        // Wake at least once per heartbeat: the leases must be renewed, and
        // partitions given back or left by a stopped worker taken over.
        const timer = setTimeout(resolve, Math.min(pollMs, worker.heartbeatMs));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
        if (announced !== seen || options.signal.aborted) wake();
      });
      wake = undefined;
    }
  } catch (cause) {
    return err(databaseError(cause, 'listening for appends'));
  } finally {
    await worker.release();
    options.signal.removeEventListener('abort', onAbort);
    await listener.query(`UNLISTEN ${APPEND_CHANNEL}`).catch(() => undefined);
    listener.release(broken ?? false);
  }
};

/**
 * Runs `worker` until `signal` aborts: every event appended meanwhile is
 * projected, usually within milliseconds of its commit. Resolves with the
 * last progress; a database error ends it with that error (restart it, e.g.
 * under a supervisor: the checkpoint makes that safe).
 */
export const followAppends = async (
  pool: SqlPool,
  worker: ProjectionWorker,
  options: FollowOptions,
): Promise<Result<WorkerProgress, PostgresError>> =>
  safeTry(async function* () {
    const listener = yield* await connect(pool);
    return await followOn(listener as ListeningClient, worker, options);
  });
