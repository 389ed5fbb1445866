/**
 * The append deadline of `signfold serve --log FILE` (`--append-timeout`):
 * an append the file log has not committed within it is answered then with
 * a `timeout` failure, which `serve` answers with `503` and `Retry-After`
 * and counts. Whether it was stored after all is unknown, which is safe: the
 * sender delivers it again, and its delivery id makes the redelivery a
 * duplicate if the first one did commit.
 *
 * Why here and not in the file log, when PostgreSQL's log owns its deadline
 * (`appendTimeoutMs`): a deadline there does more than answer, it abandons
 * the group commit stuck on a silent connection so that the appends behind it
 * go on with another. The file log has nothing to abandon: a write or an
 * fsync in progress cannot be cancelled, and the appends behind it wait for
 * it whatever the deadline does. All a deadline can do for a file log is
 * bound how long a sender waits for its answer, which is serve's concern, so
 * serve's file storage owns it. Each storage has exactly one deadline: this
 * one for the file log, the log's own for PostgreSQL; `watchAppends` has none.
 *
 * It wraps the storage outermost (around the read model's follower too), so
 * what the log commits after the deadline still reaches the read model.
 */
import { err, type Result } from 'neverthrow';
import type {
  AppendOptions,
  AppendOutcome,
  AppendTimeout,
  LogFailure,
} from '../../engine/event-log.js';
import { secondsOf, stallAfterMs, stalledReason } from './append-watch.js';
import type { ServeStorage } from './storage.js';

/**
 * `storage` with its appends answered within `timeoutMs` (see the module
 * comment). Its probe also reports an append the log has been working on for
 * longer than the stall threshold, answered at its deadline or not: a stalled
 * disk leaves the lock and the file as they were, so the file storage's own
 * probe would not see it. `now` is a monotonic clock in ms.
 */
export const withAppendDeadline = (
  storage: ServeStorage,
  timeoutMs: number,
  now: () => number = () => performance.now(),
): ServeStorage => {
  const stallMs = stallAfterMs(timeoutMs);
  /** An append the log has not settled yet (answered at its deadline or not). */
  interface Pending {
    readonly started: number;
    /** Answers the caller with a result. */
    readonly resolve: (result: Result<AppendOutcome, LogFailure>) => void;
    /** Answers the caller with the log's own rejection. */
    readonly reject: (cause: unknown) => void;
    answered: boolean;
  }
  // In start order, hence in deadline order: the first one not yet answered is the next due.
  // One timer for all of them, armed for that one, instead of a timer and a race per append:
  // under load those were a large share of each request's garbage.
  const pending = new Set<Pending>();
  let unanswered = 0;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = (): AppendTimeout => ({
    kind: 'timeout',
    timeoutMs,
    message: `no commit within ${secondsOf(timeoutMs)} (--append-timeout): the storage does not answer; it may or may not be stored: deliver it again`,
  });
  /** Whether `waiting` is to be answered now: `false` once it was (at its deadline or not). */
  const answering = (waiting: Pending): boolean => {
    if (waiting.answered) return false;
    waiting.answered = true;
    unanswered -= 1;
    // None left to answer: the timer goes (it would hold the exit up).
    if (unanswered === 0 && timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    return true;
  };
  const arm = (): void => {
    if (timer !== undefined) return;
    for (const waiting of pending) {
      if (waiting.answered) continue;
      timer = setTimeout(expire, Math.max(0, waiting.started + timeoutMs - now()));
      return;
    }
  };
  const expire = (): void => {
    timer = undefined;
    const at = now();
    for (const waiting of pending) {
      if (waiting.answered) continue;
      if (waiting.started + timeoutMs > at) break;
      if (answering(waiting)) waiting.resolve(err(timedOut()));
    }
    arm();
  };
  const append = (
    event: unknown,
    options?: AppendOptions,
  ): Promise<Result<AppendOutcome, LogFailure>> =>
    new Promise((resolve, reject) => {
      const waiting: Pending = { started: now(), resolve, reject, answered: false };
      pending.add(waiting);
      unanswered += 1;
      arm();
      // Past the deadline the caller has its answer: what the log says then is not passed on.
      const settled = (result: Result<AppendOutcome, LogFailure>): void => {
        pending.delete(waiting);
        if (answering(waiting)) waiting.resolve(result);
      };
      const failed = (cause: unknown): void => {
        pending.delete(waiting);
        if (answering(waiting)) waiting.reject(cause);
      };
      try {
        storage.log.append(event, options).then(settled, failed);
      } catch (cause) {
        failed(cause);
      }
    });
  return {
    ...storage,
    log: { append },
    probe: async () => {
      const first = pending.values().next();
      if (first.done !== true) {
        const waited = now() - first.value.started;
        if (waited > stallMs) return stalledReason(waited);
      }
      return storage.probe();
    },
  };
};
