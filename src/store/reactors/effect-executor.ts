/**
 * Starts the ready effects of a {@link ReactorEffects} and records their
 * outcomes, at most {@link MAX_IN_FLIGHT} at once. A slot is freed only once
 * the outcome is journaled (`journaled(n)`), not when `execute` returns, so
 * a crash repeats at most the effects that hold a slot.
 */
import { attemptEffect } from '../../core/reactors/attempt-effect.js';
import type { AttemptObserver } from '../../core/reactors/attempt-result.js';
import { InFlightLimit, settleWithin } from '../../core/reactors/in-flight.js';
import type { EffectEntry, ReactorEffects } from '../../core/reactors/reactor-effects.js';
import type { Effect, Reactor } from '../../core/reactors/reactor-types.js';
import { endAttemptSpan } from '../../engine/attempt-span.js';
import type { EffectTrace } from './effect-trace.js';

/** Counters of one runner's attempts. */
export interface ExecutionCounts {
  readonly succeeded: number;
  readonly failed: number;
  /** Attempts that failed after the shutdown fired `ctx.signal`: not counted, they run again. */
  readonly interrupted: number;
}

/** Runs the book's ready effects for the reactors it knows (see the module comment). */
export class EffectExecutor {
  readonly #book: ReactorEffects;
  readonly #reactors: ReadonlyMap<string, Reactor>;
  readonly #limit = new InFlightLimit();
  readonly #running = new Map<number, Promise<void>>();
  readonly #runningReactors = new Map<number, string>();
  readonly #controller = new AbortController();
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #onSettled: () => void;
  readonly #onAttempt: AttemptObserver | undefined;
  readonly #trace: EffectTrace | undefined;
  #unjournaled = 0;
  #succeeded = 0;
  #failed = 0;
  #interrupted = 0;

  constructor(options: {
    readonly book: ReactorEffects;
    readonly reactors: readonly Reactor[];
    readonly now: () => number;
    readonly random: () => number;
    /** Called after each outcome is recorded in the book (to wake the runner). */
    readonly onSettled: () => void;
    /** Told of each attempt's end (metrics). */
    readonly onAttempt?: AttemptObserver | undefined;
    /** Spans of the attempts; none when undefined. */
    readonly trace?: EffectTrace | undefined;
  }) {
    this.#book = options.book;
    this.#reactors = new Map(options.reactors.map((reactor) => [reactor.name, reactor]));
    this.#now = options.now;
    this.#random = options.random;
    this.#onSettled = options.onSettled;
    this.#onAttempt = options.onAttempt;
    this.#trace = options.trace;
  }

  /** Effects running now. */
  get running(): number {
    return this.#running.size;
  }

  /** Effects running now, per reactor (an attempt in progress is still pending in the book). */
  runningByReactor(): ReadonlyMap<string, number> {
    const counts = new Map<string, number>();
    for (const reactor of this.#runningReactors.values()) {
      counts.set(reactor, (counts.get(reactor) ?? 0) + 1);
    }
    return counts;
  }

  /** Outcomes recorded in the book but not yet journaled. */
  get unjournaled(): number {
    return this.#unjournaled;
  }

  /** Attempts so far. */
  counts(): ExecutionCounts {
    return { succeeded: this.#succeeded, failed: this.#failed, interrupted: this.#interrupted };
  }

  /** Whether any effect of these reactors is ready or retrying (due now or later). */
  hasRunnable(): boolean {
    for (const entry of this.#book.readyInOrder(Number.POSITIVE_INFINITY)) {
      if (this.owns(entry)) return true;
    }
    return false;
  }

  /** Whether `entry` belongs to a reactor of this process (others' effects wait for their own). */
  owns(entry: EffectEntry): boolean {
    return this.#reactors.has(entry.reactor);
  }

  /** Starts ready effects in (due, id) order while slots are free; returns how many started. */
  startReady(): number {
    if (this.#controller.signal.aborted || this.#limit.available === 0) return 0;
    let started = 0;
    for (const entry of this.#book.readyInOrder(this.#now())) {
      if (this.#running.has(entry.id) || !this.owns(entry)) continue;
      if (!this.#limit.tryAcquire()) break;
      this.#runningReactors.set(entry.id, entry.reactor);
      this.#running.set(entry.id, this.#run(entry));
      started += 1;
    }
    return started;
  }

  async #run(entry: EffectEntry): Promise<void> {
    const reactor = this.#reactors.get(entry.reactor) as Reactor;
    const span = this.#trace?.attempt(entry.reactor, entry.id, entry.position, entry.attempts + 1);
    const outcome = await attemptEffect(reactor, entry.effect as Effect, {
      idempotencyKey: entry.idempotencyKey,
      attempt: entry.attempts + 1,
      signal: this.#controller.signal,
    });
    if (outcome.ok) {
      this.#book.succeeded(entry.id);
      this.#succeeded += 1;
      this.#onAttempt?.(entry.reactor, 'succeeded');
    } else if (this.#controller.signal.aborted) {
      // Cut short by the shutdown (ctx.signal), not failed: it stays due and runs again next
      // time with the same key, without using up one of its attempts.
      this.#interrupted += 1;
      this.#onAttempt?.(entry.reactor, 'interrupted');
    } else {
      this.#book.failed(entry.id, outcome.error, reactor.retry, this.#now(), this.#random);
      this.#failed += 1;
      this.#onAttempt?.(entry.reactor, 'failed');
    }
    if (span !== undefined) {
      const ended = outcome.ok
        ? 'succeeded'
        : this.#controller.signal.aborted
          ? 'interrupted'
          : 'failed';
      endAttemptSpan(span, ended, outcome.ok ? undefined : outcome.error);
    }
    this.#running.delete(entry.id);
    this.#runningReactors.delete(entry.id);
    this.#unjournaled += 1;
    this.#onSettled();
  }

  /** Frees the slots of `count` outcomes now written to the journal. */
  journaled(count: number): void {
    this.#unjournaled -= count;
    this.#limit.release(count);
  }

  /**
   * Stops starting effects and fires `ctx.signal`; resolves once every
   * running effect settled or `graceMs` passed, to the number still running.
   */
  stop(graceMs: number): Promise<number> {
    this.#controller.abort();
    return settleWithin(this.#running, graceMs);
  }
}
