/**
 * The appends of `signfold serve`, watched. The deadline (`--append-timeout`)
 * is not enforced here: the storage owns it, alone (see `ServeStorage.log`),
 * and answers an append that has not committed by then with a `timeout`
 * failure (`AppendTimeout`, engine/event-log.ts), which the handler turns
 * into `503` with `Retry-After`. Not a second timer here as well: two timers
 * with the same value race, whichever fires first decides the 503 and its
 * reason, and a count kept by the one that lost misses it. So the storage's
 * answer alone decides all three: its failure is the 503's reason, and a
 * `timeout` is what is counted, once per append.
 *
 * The appends still waiting also tell `/readyz` that deliveries cannot be
 * stored now.
 */
import type { Result } from 'neverthrow';
import {
  type AppendOptions,
  type AppendOutcome,
  type EventLog,
  isAppendTimeout,
  type LogFailure,
} from '../../engine/event-log.js';

/** How long an append may wait before `/readyz` calls the storage stuck, at most. */
export const STALL_MS = 3000;

/** How long an append may wait before `/readyz` calls the storage stuck, under `deadlineMs`. */
export const stallAfterMs = (deadlineMs: number): number => Math.min(STALL_MS, deadlineMs);

/** `2.5 s`: a duration as the messages say it. */
export const secondsOf = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** The reason `/readyz` gives for an append that has waited `waitedMs`. */
export const stalledReason = (waitedMs: number): string =>
  `appends are not completing: one has waited ${secondsOf(waitedMs)}`;

/** Appends watched, and what they say about the storage. */
export interface WatchedAppends {
  /** The log the handler appends to: the storage's, watched. */
  readonly log: Pick<EventLog, 'append'>;
  /**
   * Why deliveries cannot be stored now as far as the appends in progress
   * tell (one has been waiting longer than {@link STALL_MS}, or than the
   * deadline if it is shorter); `undefined` otherwise.
   */
  stalled(): string | undefined;
}

/** What {@link watchAppends} reports besides the appends' answers. */
export interface AppendEvents {
  /**
   * The storage answered an append with a `timeout` (its deadline passed):
   * once per such answer (counted in `/metrics`).
   */
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
 * Watches `log.append` (see the module comment), telling `events` of
 * timeouts and outages. `log` must answer every append by its deadline,
 * `deadlineMs`: that is the storage's to do, and nothing here answers in its
 * place; `deadlineMs` only caps how long an append waits before
 * {@link WatchedAppends.stalled} speaks up. `now` is a monotonic clock in ms.
 */
export const watchAppends = (
  log: Pick<EventLog, 'append'>,
  deadlineMs: number,
  events: AppendEvents,
  now: () => number = () => performance.now(),
): WatchedAppends => {
  const stallMs = stallAfterMs(deadlineMs);
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
  // When each append the storage has not answered yet started, in start order: the first is
  // the one that has waited longest. Insertion order of a Set, no timer.
  const pending = new Set<{ readonly started: number }>();
  const settled = (result: Result<AppendOutcome, LogFailure>): void => {
    if (result.isOk()) {
      succeeded();
      return;
    }
    const { error } = result;
    if (ABOUT_THE_DELIVERY.has(error.kind)) return;
    // The storage's own deadline passed: the delivery gets its 503 (the handler answers
    // every failure but a refusal of the delivery so), and here it is counted, once.
    if (isAppendTimeout(error)) events.onTimeout();
    failed(error.message);
  };
  const append = async (
    event: unknown,
    options?: AppendOptions,
  ): Promise<Result<AppendOutcome, LogFailure>> => {
    const waiting = { started: now() };
    pending.add(waiting);
    try {
      const result = await log.append(event, options);
      pending.delete(waiting);
      settled(result);
      return result;
    } catch (cause) {
      pending.delete(waiting);
      failed(cause instanceof Error ? cause.message : String(cause));
      throw cause;
    }
  };
  return {
    log: { append },
    stalled: () => {
      const first = pending.values().next();
      if (first.done === true) return undefined;
      const waited = now() - first.value.started;
      return waited > stallMs ? stalledReason(waited) : undefined;
    },
  };
};
