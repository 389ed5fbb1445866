/**
 * Live projection: catch up, then sleep until an append is announced
 * (`LISTEN`; the events table `NOTIFY`s on every insert) or a slow poll
 * interval passes, as a fallback for a missed notification; until stopped.
 * With `outage` reports, a fault of the network or the server (see
 * `isRetryable`) does not end it: it reconnects with a jittered backoff and
 * carries on where the checkpoints say.
 */
import { err, ok, type Result } from 'neverthrow';
import { type Backoff, Outage, type OutageReports, pause } from '../outage.js';
import { databaseError, isRetryable, type PostgresError } from '../postgres-error.js';
import { APPEND_CHANNEL } from '../schema/migrations.js';
import { connect, type SqlPool, type SqlPoolClient } from '../sql-client.js';
import type { ProjectionWorker, WorkerProgress } from './projection-worker.js';

/** Options of {@link followAppends}. */
export interface FollowOptions {
  /** Stops following once aborted (after the batch in progress commits). */
  readonly signal: AbortSignal;
  /** Longest sleep without a notification, in ms (default 5,000). */
  readonly pollIntervalMs?: number;
  /** Called after each batch that projected something. */
  readonly onBatch?: (progress: WorkerProgress) => void;
  /**
   * Where outages are reported, once as each begins and once as it ends.
   * With it, a retryable failure (the connection, a deadline, the server's
   * state) is retried with `backoff` instead of ending the follow; without
   * it, the first failure ends it, as before.
   */
  readonly outage?: OutageReports;
  /** The waits between tries during an outage (default `DEFAULT_BACKOFF`). */
  readonly backoff?: Backoff;
  /**
   * The schema whose appends wake the worker (default its own). A rebuild
   * schema reads another schema's events (through views), whose appends are
   * announced under that schema's name.
   */
  readonly appendsOf?: string;
}

interface Notification {
  readonly channel: string;
  readonly payload?: string;
}

type ListeningClient = SqlPoolClient & {
  on(event: 'notification', listener: (message: Notification) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
};

/** What one connection's follow ended with: the last progress, or the failure that ended it. */
type Followed = Result<WorkerProgress | undefined, PostgresError>;

/**
 * Follows on one listening connection, which it releases at the end
 * (destroyed after a failure), until `signal` aborts or a query fails.
 * `onProgress` gets every catch-up's progress (the connection works).
 */
const followOn = async (
  listener: ListeningClient,
  worker: ProjectionWorker,
  options: FollowOptions,
  onProgress: (progress: WorkerProgress) => void,
): Promise<Followed> => {
  // The schema whose events the worker reads: a notification of any other is not for it.
  const schema = options.appendsOf ?? worker.schema;
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
  let failure: Error | undefined;
  let last: WorkerProgress | undefined;
  try {
    await listener.query(`LISTEN ${APPEND_CHANNEL}`);
    let checked = performance.now();
    for (;;) {
      const seen = announced;
      const caughtUp = await worker.catchUp(options.onBatch, options.signal);
      if (caughtUp.isErr()) {
        failure = new Error(caughtUp.error.message);
        return caughtUp;
      }
      last = caughtUp.value;
      onProgress(last);
      if (options.signal.aborted) return ok(last);
      if (broken !== undefined) {
        failure = broken;
        return err(databaseError(broken, 'listening for appends'));
      }
      // A listening connection gone silent (a lost NAT entry) raises no error
      // and delivers no notification: a query with a deadline, once per
      // heartbeat, finds out.
      if (performance.now() - checked >= worker.heartbeatMs) {
        await listener.query('SELECT 1');
        checked = performance.now();
      }
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
    failure = cause instanceof Error ? cause : new Error(String(cause));
    return err(databaseError(cause, 'listening for appends'));
  } finally {
    options.signal.removeEventListener('abort', onAbort);
    if (failure === undefined && broken === undefined) {
      await listener.query(`UNLISTEN ${APPEND_CHANNEL}`).catch(() => undefined);
    }
    // A connection that failed is destroyed, never handed to another query.
    listener.release(broken ?? failure ?? false);
  }
};

/**
 * Runs `worker` until `signal` aborts: every event appended meanwhile is
 * projected, usually within milliseconds of its commit. Resolves with the
 * last progress, and gives the worker's partitions back. A failure that
 * retrying cannot fix ends it with that error (so does any failure without
 * `outage`): restart it, e.g. under a supervisor: the checkpoint makes that
 * safe. With `outage`, a retryable failure reconnects after a backoff; a
 * stop during an outage resolves to the last progress seen (or the outage's
 * error if there was none), without asking the unreachable server anything.
 */
export const followAppends = async (
  pool: SqlPool,
  worker: ProjectionWorker,
  options: FollowOptions,
): Promise<Result<WorkerProgress, PostgresError>> => {
  const outage =
    options.outage === undefined ? undefined : new Outage(options.outage, options.backoff);
  let last: WorkerProgress | undefined;
  let lastError: PostgresError | undefined;
  const onProgress = (progress: WorkerProgress): void => {
    last = progress;
    outage?.succeeded();
  };
  for (;;) {
    const connected = await connect(pool);
    const followed: Followed = connected.isErr()
      ? err(connected.error)
      : await followOn(connected.value as ListeningClient, worker, options, onProgress);
    if (followed.isOk()) {
      // Stopped: the partitions go back at once, so others need not wait for expiry.
      await worker.release();
      return followed.value === undefined
        ? lastError === undefined
          ? err(databaseError(new Error('stopped before the first batch'), 'following'))
          : err(lastError)
        : ok(followed.value);
    }
    const error = followed.error;
    if (outage === undefined || !isRetryable(error)) {
      // The server answered (a refusal retrying cannot fix): give the partitions back.
      if (error.kind === 'database' && error.code !== undefined && !isRetryable(error)) {
        await worker.release();
      }
      return err(error);
    }
    lastError = error;
    await pause(outage.failed(error), options.signal);
    if (options.signal.aborted) {
      // Nobody answers: the leases expire by themselves.
      return last === undefined ? err(error) : ok(last);
    }
  }
};
