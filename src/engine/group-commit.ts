/**
 * Serializes appends and coalesces the ones that queue up while a write is
 * in flight into a single write + fsync ("group commit"). A lone append is
 * committed at once; under concurrency, throughput scales with the group
 * size instead of being capped at one fsync per event. Jobs are committed in
 * push order, which is what keeps positions in call order.
 */

/** A FIFO of jobs committed in groups by one worker. */
export class GroupCommitQueue<Job> {
  readonly #commit: (jobs: readonly Job[]) => Promise<void>;
  #pending: Job[] = [];
  #draining: Promise<void> | undefined;

  /** `commit` stores a group and settles each job itself; it must not reject. */
  constructor(commit: (jobs: readonly Job[]) => Promise<void>) {
    this.#commit = commit;
  }

  /** Queues `job`; it is committed with whatever else is pending when the worker gets to it. */
  push(job: Job): void {
    this.#pending.push(job);
    this.#draining ??= this.#drain();
  }

  /** Resolves once every job pushed so far has been committed. */
  idle(): Promise<void> {
    return this.#draining ?? Promise.resolve();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const jobs = this.#pending;
        this.#pending = [];
        await this.#commit(jobs);
      }
    } finally {
      this.#draining = undefined;
    }
  }
}
