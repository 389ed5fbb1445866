/**
 * Riding out an outage of PostgreSQL: a jittered exponential backoff between
 * tries, and a tracker that reports an outage once when it begins and once
 * when it ends, however many tries it takes (an operator reads one line per
 * outage, not one per try).
 */
import type { PostgresError } from './postgres-error.js';

/** The waits between tries, in ms: the first, and the largest any grows to. */
export interface Backoff {
  readonly firstMs: number;
  readonly maxMs: number;
}

/**
 * 250 ms doubling up to 5 s: a blip (a reset, a restart) is retried at once,
 * and a long outage costs the server one connection attempt per process
 * every few seconds. Half a default lease, so a worker that gets its
 * connection back still finds its own leases unclaimed by others.
 */
export const DEFAULT_BACKOFF: Backoff = { firstMs: 250, maxMs: 5000 };

/**
 * The wait before try `attempt` (0 for the first retry): the ceiling doubles
 * each time up to `maxMs`, and the wait is drawn between half the ceiling
 * and the ceiling, so that processes cut off together do not come back in
 * lockstep.
 */
export const backoffDelay = (
  attempt: number,
  backoff: Backoff = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number => {
  const ceiling = Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
};

/** Resolves after `ms`, or at once when `signal` aborts (a stop must not wait out a backoff). */
export const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });

/** What {@link Outage} reports. */
export interface OutageReports {
  /** The outage began with `error` (called once per outage). */
  readonly down: (error: PostgresError) => void;
  /** It ended after `downMs` and `tries` failed tries (called once per outage). */
  readonly up: (downMs: number, tries: number) => void;
}

/** Tracks one loop's outages: see the module comment. */
export class Outage {
  readonly #reports: OutageReports;
  readonly #backoff: Backoff;
  #since: number | undefined;
  #tries = 0;

  /** Reports through `reports`; waits as `backoff` says. */
  constructor(reports: OutageReports, backoff: Backoff = DEFAULT_BACKOFF) {
    this.#reports = reports;
    this.#backoff = backoff;
  }

  /** Whether the last try failed. */
  get down(): boolean {
    return this.#since !== undefined;
  }

  /** A try failed with `error`: reports the outage if it just began; resolves to the wait before the next try. */
  failed(error: PostgresError): number {
    if (this.#since === undefined) {
      this.#since = performance.now();
      this.#reports.down(error);
    }
    this.#tries += 1;
    return backoffDelay(this.#tries - 1, this.#backoff);
  }

  /** A try succeeded: reports the end of the outage, if there was one. */
  succeeded(): void {
    if (this.#since === undefined) return;
    const downMs = performance.now() - this.#since;
    const tries = this.#tries;
    this.#since = undefined;
    this.#tries = 0;
    this.#reports.up(downMs, tries);
  }
}
