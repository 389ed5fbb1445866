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

  /** A request began: call {@link InFlightRequests.end} once it is answered, whatever happens. */
  begin(): void {
    this.#count += 1;
  }

  /**
   * A request begun with {@link InFlightRequests.begin} ended. A pair of
   * calls rather than a wrapper taking a callback: this runs for every
   * request, and the wrapper cost a closure and two promises each.
   */
  end(): void {
    this.#count -= 1;
    if (this.#count === 0) for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Resolves once no request is in progress (at once if none is). */
  idle(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
