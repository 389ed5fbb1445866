/**
 * The appends of `signfold serve`, bounded and watched. An append that has
 * not committed within the deadline (`--append-timeout`) is answered at the
 * deadline with an error the handler turns into `503` with `Retry-After`:
 * a sender waits for its answer at most that long, even when the storage
 * hangs (a silent connection, a stalled disk). Whether it was stored after
 * all is unknown, which is safe: the sender delivers it again, and its
 * delivery id makes the redelivery a duplicate if the first one did commit.
 * The appends still waiting also tell `/readyz` that deliveries cannot be
 * stored now.
 */
import { err, type Result } from 'neverthrow';
import type { AppendOptions, AppendOutcome, EventLog, LogFailure } from '../../engine/event-log.js';

/** How long an append may wait before `/readyz` calls the storage stuck, at most. */
export const STALL_MS = 3000;

/** Appends under a deadline, and what they say about the storage. */
export interface WatchedAppends {
  /** The log the handler appends to: the storage's, bounded by the deadline. */
  readonly log: Pick<EventLog, 'append'>;
  /**
   * Why deliveries cannot be stored now as far as the appends in progress
   * tell (one has been waiting longer than {@link STALL_MS}); `undefined`
   * otherwise.
   */
  stalled(): string | undefined;
}

/** `2.5 s`: a duration as the messages say it. */
const secondsOf = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** What {@link watchAppends} reports besides the appends' answers. */
export interface AppendEvents {
  /** An append was answered at its deadline (counted in `/metrics`). */
  readonly onTimeout: () => void;
  /**
   * The storage stopped taking appends (`reason`: the first failure's), or
   * took one again after `outageMs`: once per outage, not once per delivery.
   */
  readonly onChange: (change: { unavailable: string } | { availableAfterMs: number }) => void;
}

/** Refusals that say something about the delivery, not about the storage. */
const ABOUT_THE_DELIVERY = new Set(['too-large', 'not-serializable']);

/**
 * Wraps `log.append` in a deadline of `timeoutMs` (see the module comment),
 * telling `events` of timeouts and outages. `now` is a monotonic clock in ms.
 */
export const watchAppends = (
  log: Pick<EventLog, 'append'>,
  timeoutMs: number,
  events: AppendEvents,
  now: () => number = () => performance.now(),
): WatchedAppends => {
  let failingSince: number | undefined;
  const failed = (reason: string): void => {
    if (failingSince !== undefined) return;
    failingSince = now();
    events.onChange({ unavailable: reason });
  };
  const succeeded = (): void => {
    if (failingSince === undefined) return;
    events.onChange({ availableAfterMs: Math.round(now() - failingSince) });
    failingSince = undefined;
  };
  /** An append the log has not settled yet (answered at its deadline or not). */
  interface Pending {
    readonly started: number;
    /** Answers the handler; a no-op once it was answered (a promise settles once). */
    readonly answer: (result: Result<AppendOutcome, LogFailure>) => void;
    answered: boolean;
  }
  // In start order, hence in deadline order: the first one not yet answered is the next due.
  // One timer for all of them, armed for that one, instead of a timer and a race per append:
  // under load those were a large share of each request's garbage.
  const pending = new Set<Pending>();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = (): Result<AppendOutcome, LogFailure> =>
    err({
      kind: 'timeout',
      message: `no commit within ${secondsOf(timeoutMs)} (--append-timeout): the storage does not answer; it may or may not be stored: deliver it again`,
    });
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
      waiting.answered = true;
      events.onTimeout();
      failed(`no commit within ${secondsOf(timeoutMs)}`);
      waiting.answer(timedOut());
    }
    arm();
  };
  /** Forgets a settled append; with none left, the timer goes too (it would hold the exit up). */
  const forget = (waiting: Pending): void => {
    pending.delete(waiting);
    if (pending.size === 0 && timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
  };
  const settled = (waiting: Pending, result: Result<AppendOutcome, LogFailure>): void => {
    forget(waiting);
    if (result.isOk()) succeeded();
    else if (!ABOUT_THE_DELIVERY.has(result.error.kind)) failed(result.error.message);
    waiting.answered = true;
    waiting.answer(result);
  };
  const append = (
    event: unknown,
    options?: AppendOptions,
  ): Promise<Result<AppendOutcome, LogFailure>> =>
    new Promise((answer, reject) => {
      const waiting: Pending = { started: now(), answer, answered: false };
      pending.add(waiting);
      arm();
      const failedWith = (cause: unknown): void => {
        forget(waiting);
        failed(cause instanceof Error ? cause.message : String(cause));
        waiting.answered = true;
        reject(cause);
      };
      try {
        log.append(event, options).then((result) => settled(waiting, result), failedWith);
      } catch (cause) {
        failedWith(cause);
      }
    });
  return {
    log: { append },
    stalled: () => {
      const first = pending.values().next();
      if (first.done === true) return undefined;
      const waited = now() - first.value.started;
      return waited > Math.min(STALL_MS, timeoutMs)
        ? `appends are not completing: one has waited ${secondsOf(waited)}`
        : undefined;
    },
  };
};
