/**
 * The effect executor of a file log: the shared executor core over the
 * runner's {@link ReactorEffects}, the book the runner journals beside the
 * log. A verdict is written into the book at once and reaches the journal
 * at the runner's next flush, which then calls `journaled(n)` to free the
 * slots, so a crash repeats at most the effects that hold a slot.
 */
import type { AttemptObserver } from '../../core/reactors/attempt-result.js';
import type { EffectEntry, ReactorEffects } from '../../core/reactors/reactor-effects.js';
import type { Reactor } from '../../core/reactors/reactor-types.js';
import {
  type AttemptVerdict,
  EffectExecutorCore,
  type EffectStorage,
  type ExecutionCounts,
} from '../../engine/reactors/effect-executor-core.js';
import type { EffectTrace } from './effect-trace.js';

export type { ExecutionCounts } from '../../engine/reactors/effect-executor-core.js';

/** Writes a verdict into the book (an interrupted attempt leaves the effect as it was: due). */
const recordInBook = (book: ReactorEffects, entry: EffectEntry, verdict: AttemptVerdict): void => {
  if (verdict.kind === 'done') book.succeeded(entry.id);
  else if (verdict.kind === 'retrying') book.recordFailure(entry.id, verdict.error, verdict.dueAt);
  else if (verdict.kind === 'parked') book.recordFailure(entry.id, verdict.error, undefined);
};

/** Runs the book's ready effects for the reactors it knows (see the module comment). */
export class EffectExecutor {
  readonly #book: ReactorEffects;
  readonly #now: () => number;
  readonly #core: EffectExecutorCore<EffectEntry>;

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
    const { book, trace } = options;
    this.#book = book;
    this.#now = options.now;
    const storage: EffectStorage<EffectEntry> = {
      claimDue: (room, running) => this.#readyToStart(room, running),
      record: (entry, verdict) => recordInBook(book, entry, verdict),
      ...(trace === undefined
        ? {}
        : {
            startSpan: (entry, attempt) =>
              trace.attempt(entry.reactor, entry.id, entry.position, attempt),
          }),
    };
    this.#core = new EffectExecutorCore({ ...options, storage });
  }

  /** The book's ready entries of these reactors, in (due, id) order, up to `room`, none running. */
  #readyToStart(room: number, running: ReadonlyMap<number, unknown>): EffectEntry[] {
    const ready: EffectEntry[] = [];
    for (const entry of this.#book.readyInOrder(this.#now())) {
      if (running.has(entry.id) || !this.owns(entry)) continue;
      ready.push(entry);
      if (ready.length === room) break;
    }
    return ready;
  }

  /** Effects running now. */
  get running(): number {
    return this.#core.running;
  }

  /** Effects running now, per reactor (an attempt in progress is still pending in the book). */
  runningByReactor(): ReadonlyMap<string, number> {
    return this.#core.runningByReactor();
  }

  /** Outcomes recorded in the book but not yet journaled. */
  get unjournaled(): number {
    return this.#core.notDurable;
  }

  /** Attempts so far. */
  counts(): ExecutionCounts {
    return this.#core.counts();
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
    return this.#core.knows(entry.reactor);
  }

  /** Starts ready effects in (due, id) order while slots are free; resolves to how many started. */
  startReady(): Promise<number> {
    return this.#core.claimAndStart();
  }

  /** Frees the slots of `count` outcomes now written to the journal. */
  journaled(count: number): void {
    this.#core.durable(count);
  }

  /**
   * Stops starting effects and fires `ctx.signal`; resolves once every
   * running effect settled or `graceMs` passed, to the number still running.
   */
  stop(graceMs: number): Promise<number> {
    return this.#core.stop(graceMs);
  }
}
