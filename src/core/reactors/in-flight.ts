/**
 * The in-flight bound: an effect counts from its start until its outcome is
 * journaled (file) or committed (PostgreSQL), so a crash repeats at most this
 * many effects.
 */

/** At most this many effects per process are started or finished-but-not-journaled. */
export const MAX_IN_FLIGHT = 64;

/**
 * A counter both runtimes use: `tryAcquire` before starting an effect,
 * `release` once its outcome is durable. `whenAvailable` resolves when a
 * slot is free (at once if one is).
 */
export class InFlightLimit {
  #inFlight = 0;
  #waiters: (() => void)[] = [];

  constructor(readonly limit: number = MAX_IN_FLIGHT) {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new TypeError('the in-flight limit must be a positive safe integer');
    }
  }

  /** How many slots are taken. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** How many slots are free. */
  get available(): number {
    return this.limit - this.#inFlight;
  }

  /** Takes a slot if one is free; `false` if the limit is reached. */
  tryAcquire(): boolean {
    if (this.#inFlight >= this.limit) {
      return false;
    }
    this.#inFlight += 1;
    return true;
  }

  /** Frees `count` slots (an effect's outcome became durable) and wakes waiters. */
  release(count = 1): void {
    this.#inFlight = Math.max(0, this.#inFlight - count);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) {
      wake();
    }
  }

  /** Resolves once at least one slot is free. */
  whenAvailable(): Promise<void> {
    if (this.#inFlight < this.limit) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/**
 * Waits until every effect in `running` settled or `graceMs` passed, and
 * resolves to how many still run: the end of a runner's `stop`, once it fired
 * `ctx.signal`. An effect that ignores the signal cannot hold a shutdown past
 * its bound.
 */
export const settleWithin = async (
  running: ReadonlyMap<unknown, Promise<void>>,
  graceMs: number,
): Promise<number> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
  });
  await Promise.race([Promise.allSettled([...running.values()]), timeout]);
  clearTimeout(timer);
  return running.size;
};
