/**
 * The runner's one place to sleep: it waits for a timeout, and is woken
 * early by an effect settling, an append (`notify`) or a shutdown.
 */
export class WakeUp {
  #resolve: (() => void) | undefined;
  #pending = false;
  #notified = false;

  /** Wakes the waiter now, or makes the next `wait` return at once; `notified` marks an append. */
  wake(notified = false): void {
    this.#notified ||= notified;
    if (this.#resolve === undefined) {
      this.#pending = true;
      return;
    }
    const resolve = this.#resolve;
    this.#resolve = undefined;
    resolve();
  }

  /** Whether an append was signalled since the last call. */
  takeNotified(): boolean {
    const notified = this.#notified;
    this.#notified = false;
    return notified;
  }

  /** Resolves after `ms`, or sooner when woken. */
  wait(ms: number): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#resolve = undefined;
        resolve();
      }, ms);
      this.#resolve = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
