/**
 * The requests a server is answering right now, so that a shutdown can wait
 * for them (their appends included) before it closes the log.
 */

/** A counter of requests in progress that can be waited on until it is zero. */
export class InFlightRequests {
  #count = 0;
  #waiters: (() => void)[] = [];

  /** How many requests are in progress. */
  get count(): number {
    return this.#count;
  }

  /** Runs `answer` as one request in progress; settles as it does. */
  async track<T>(answer: () => Promise<T>): Promise<T> {
    this.#count += 1;
    try {
      return await answer();
    } finally {
      this.#count -= 1;
      if (this.#count === 0) for (const wake of this.#waiters.splice(0)) wake();
    }
  }

  /** Resolves once no request is in progress (at once if none is). */
  idle(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
