/**
 * What the effect executors of both engines share, written once: starting
 * claimed effects at most `MAX_IN_FLIGHT` at once, deciding after each
 * attempt whether the effect is done, retries after a backoff or is parked
 * (the one retry rule of `retry-policy.ts`), counting attempts, and the stop
 * that fires `ctx.signal`. Where effects are kept and how a claim is made
 * durable (a book journaled beside a file log, rows of PostgreSQL under
 * leases) is the {@link EffectStorage} port's business.
 *
 * A slot is freed only once the storage says an outcome is durable
 * ({@link EffectExecutorCore.durable}), not when `execute` returns, so a
 * crash repeats at most the effects that hold a slot.
 */
import { type AttemptOutcome, attemptEffect } from '../../core/reactors/attempt-effect.js';
import type { AttemptObserver, AttemptResult } from '../../core/reactors/attempt-result.js';
import { InFlightLimit, settleWithin } from '../../core/reactors/in-flight.js';
import type { Effect, Reactor, RetryPolicy } from '../../core/reactors/reactor-types.js';
import { afterFailure } from '../../core/reactors/retry-policy.js';
import { endAttemptSpan } from '../attempt-span.js';
import type { TraceSpan } from '../tracing.js';

/** An effect a storage handed over for one attempt. */
export interface ClaimedEffect<Id> {
  readonly id: Id;
  readonly reactor: string;
  readonly idempotencyKey: string;
  /** The effect as the reactor planned it (stored as JSON). */
  readonly effect: unknown;
  /** Attempts made before this one. */
  readonly attempts: number;
}

/**
 * What became of a claimed effect, for the storage to record. `interrupted`:
 * an attempt the stop cut short, which counts against no retry budget (it
 * runs again with the same key). `given-back`: a claim that no longer held
 * when the effect was to start, never attempted.
 */
export type AttemptVerdict =
  | { readonly kind: 'done'; readonly attempts: number }
  | {
      readonly kind: 'retrying';
      readonly attempts: number;
      readonly error: string;
      /** When it is due again (ms epoch). */
      readonly dueAt: number;
    }
  | { readonly kind: 'parked'; readonly attempts: number; readonly error: string }
  | { readonly kind: 'interrupted' }
  | { readonly kind: 'given-back' };

/**
 * Where an executor's effects live. Each claimed effect gets exactly one
 * `record`; the storage makes records durable at its own pace and then
 * calls {@link EffectExecutorCore.durable}.
 */
export interface EffectStorage<C extends ClaimedEffect<unknown>> {
  /** Claims up to `room` due effects of the executor's reactors, none of those in `running`. */
  claimDue(
    room: number,
    running: ReadonlyMap<C['id'], unknown>,
  ): readonly C[] | Promise<readonly C[]>;
  /** Whether the claim on `claimed` still holds, asked just before its attempt (default: yes). */
  holds?(claimed: C): boolean;
  /** Records what became of `claimed`. */
  record(claimed: C, verdict: AttemptVerdict): void;
  /** The span of attempt `attempt` of `claimed`, when tracing. */
  startSpan?(claimed: C, attempt: number): TraceSpan | undefined;
}

/** Counters of one executor's attempts. */
export interface ExecutionCounts {
  readonly succeeded: number;
  readonly failed: number;
  /** Attempts that failed after the shutdown fired `ctx.signal`: not counted, they run again. */
  readonly interrupted: number;
}

/** Options of {@link EffectExecutorCore}. */
export interface EffectExecutorCoreOptions<C extends ClaimedEffect<unknown>> {
  readonly storage: EffectStorage<C>;
  readonly reactors: readonly Reactor[];
  /** Wall clock, ms epoch: when a retry is due is counted from it. */
  readonly now: () => number;
  /** Jitter source for retry delays (default `Math.random`). */
  readonly random?: (() => number) | undefined;
  /** Called after each verdict is recorded (to wake the runner's loop). */
  readonly onSettled?: (() => void) | undefined;
  /** Told of each attempt's end (metrics). */
  readonly onAttempt?: AttemptObserver | undefined;
}

/** How an attempt ended, as the observer and the span are told. */
const resultOf = (verdict: AttemptVerdict): AttemptResult =>
  verdict.kind === 'done' ? 'succeeded' : verdict.kind === 'interrupted' ? 'interrupted' : 'failed';

/**
 * The verdict on attempt number `attempt` (1 for the first) of an effect
 * under `policy`: an attempt that failed once the stop fired `ctx.signal`
 * was cut short, not failed; any other failure retries after the backoff
 * until the policy's attempts are used up, then parks.
 */
export const verdictOf = (
  outcome: AttemptOutcome,
  attempt: number,
  context: {
    readonly policy: RetryPolicy;
    readonly stopping: boolean;
    readonly now: () => number;
    readonly random?: (() => number) | undefined;
  },
): AttemptVerdict => {
  if (outcome.ok) return { kind: 'done', attempts: attempt };
  if (context.stopping) return { kind: 'interrupted' };
  const next = afterFailure(context.policy, attempt, context.random);
  return next.kind === 'park'
    ? { kind: 'parked', attempts: attempt, error: outcome.error }
    : {
        kind: 'retrying',
        attempts: attempt,
        error: outcome.error,
        dueAt: context.now() + next.delayMs,
      };
};

/** See the module comment. */
export class EffectExecutorCore<C extends ClaimedEffect<unknown>> {
  readonly #options: EffectExecutorCoreOptions<C>;
  readonly #reactors: ReadonlyMap<string, Reactor>;
  readonly #limit = new InFlightLimit();
  readonly #running = new Map<C['id'], Promise<void>>();
  readonly #runningReactors = new Map<C['id'], string>();
  readonly #controller = new AbortController();
  readonly #counts = { succeeded: 0, failed: 0, interrupted: 0 };
  #notDurable = 0;

  constructor(options: EffectExecutorCoreOptions<C>) {
    this.#options = options;
    this.#reactors = new Map(options.reactors.map((reactor) => [reactor.name, reactor]));
  }

  /** Effects running now. */
  get running(): number {
    return this.#running.size;
  }

  /** The ids of the effects running now. */
  runningIds(): C['id'][] {
    return [...this.#running.keys()];
  }

  /** Effects running now, per reactor. */
  runningByReactor(): ReadonlyMap<string, number> {
    const counts = new Map<string, number>();
    for (const reactor of this.#runningReactors.values()) {
      counts.set(reactor, (counts.get(reactor) ?? 0) + 1);
    }
    return counts;
  }

  /** Verdicts recorded in the storage but not yet durable (they still hold their slots). */
  get notDurable(): number {
    return this.#notDurable;
  }

  /** Attempts so far. */
  counts(): ExecutionCounts {
    return { ...this.#counts };
  }

  /** Whether `reactor` is one of this executor's (others' effects wait for their own process). */
  knows(reactor: string): boolean {
    return this.#reactors.has(reactor);
  }

  /** The names of this executor's reactors. */
  reactorNames(): string[] {
    return [...this.#reactors.keys()];
  }

  /**
   * Claims due effects for the free slots and starts them; resolves to how
   * many the storage claimed. Nothing is claimed once stopping.
   */
  async claimAndStart(): Promise<number> {
    if (this.#controller.signal.aborted || this.#limit.available === 0) return 0;
    const claimed = await this.#options.storage.claimDue(this.#limit.available, this.#running);
    for (const effect of claimed) {
      if (!this.#limit.tryAcquire()) break;
      this.#start(effect);
    }
    return claimed.length;
  }

  #start(claimed: C): void {
    const { storage } = this.#options;
    // Asked with no await between it and the effect's start (attemptEffect calls execute at once).
    if (storage.holds?.(claimed) === false) {
      storage.record(claimed, { kind: 'given-back' });
      this.#settled();
      return;
    }
    this.#runningReactors.set(claimed.id, claimed.reactor);
    this.#running.set(claimed.id, this.#attempt(claimed));
  }

  async #attempt(claimed: C): Promise<void> {
    const reactor = this.#reactors.get(claimed.reactor) as Reactor;
    const attempt = claimed.attempts + 1;
    const span = this.#options.storage.startSpan?.(claimed, attempt);
    const outcome = await attemptEffect(reactor, claimed.effect as Effect, {
      idempotencyKey: claimed.idempotencyKey,
      attempt,
      signal: this.#controller.signal,
    });
    const verdict = verdictOf(outcome, attempt, {
      policy: reactor.retry,
      stopping: this.#controller.signal.aborted,
      now: this.#options.now,
      random: this.#options.random,
    });
    this.#options.storage.record(claimed, verdict);
    const result = resultOf(verdict);
    this.#counts[result] += 1;
    this.#options.onAttempt?.(claimed.reactor, result);
    if (span !== undefined) endAttemptSpan(span, result, outcome.ok ? undefined : outcome.error);
    this.#running.delete(claimed.id);
    this.#runningReactors.delete(claimed.id);
    this.#settled();
  }

  #settled(): void {
    this.#notDurable += 1;
    this.#options.onSettled?.();
  }

  /** Frees the slots of `count` verdicts the storage has made durable. */
  durable(count: number): void {
    this.#notDurable -= count;
    this.#limit.release(count);
  }

  /**
   * Stops claiming and fires `ctx.signal`; resolves once every running
   * effect settled or `graceMs` passed, to the number still running.
   */
  stop(graceMs: number): Promise<number> {
    this.#controller.abort();
    return settleWithin(this.#running, graceMs);
  }
}
