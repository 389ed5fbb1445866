/**
 * The semantics of timers, cancels, retries and parking, written once in
 * memory: the file engine keeps its state in one, the PostgreSQL adapter
 * applies each batch's plans with one.
 *
 * A timer is released (made runnable, and never cancellable again) only by
 * {@link ReactorEffects.release}, which a runner calls once it has reacted to
 * every stored event; until then a cancel of its key, from an event received
 * before the timer was due, still reaches it, wherever in the log that event
 * was stored. Events are not stored in the order they happened (a late
 * delivery, imported history), so an event's own time cannot tell a runner
 * that nothing earlier is still to come: only having read the whole log can.
 * Release watermarks ("released up to") are per reactor.
 */

import { DueHeap } from './due-heap.js';
import type { EffectEntry, EffectState, Mutable, SavedEffects } from './effect-entry.js';
import type { EffectsChange, EffectsReport } from './effects-report.js';
import { reportOf } from './effects-report.js';
import type { PlanStep, ReactionPlan } from './plan-reaction.js';
import type { JsonValue, RetryPolicy } from './reactor-types.js';

export type { EffectEntry, EffectState, SavedEffects } from './effect-entry.js';

import { afterFailure } from './retry-policy.js';

/**
 * One reactor's share of {@link ReactorEffects}: how far its timers have
 * been released, its scheduled timers by due time and, by key, those a
 * cancel can still reach.
 */
class ReactorTimers {
  /** The time (ms epoch) timers were last released up to; -∞ before any release. */
  watermark = Number.NEGATIVE_INFINITY;
  /** Whether `watermark` was ever set (only those are saved). */
  marked = false;
  /**
   * key → its scheduled timers, in id order (a Set: a release or cancel takes
   * one out in O(1)). Mostly one; several when an event replaced the key after
   * the older timer was due (it still fires), or arrived late behind it.
   */
  readonly keyed = new Map<string, Set<Mutable<EffectEntry>>>();
  /** Scheduled timers by due time: a release touches only what it releases. */
  readonly scheduled = new DueHeap<Mutable<EffectEntry>>((entry) => entry.state === 'scheduled');

  /**
   * Segment prefix (a key's start up to and including a `:` or `/`) → the
   * scheduled keyed timers under it. Built by the first prefix cancel (a
   * reactor that never sends one pays nothing), kept up to date after that.
   */
  #byPrefix: Map<string, Set<Mutable<EffectEntry>>> | undefined;

  /** Files a scheduled timer under its key. */
  addKeyed(entry: Mutable<EffectEntry>): void {
    if (entry.key === undefined) return;
    const timers = this.keyed.get(entry.key);
    if (timers === undefined) this.keyed.set(entry.key, new Set([entry]));
    else timers.add(entry);
    if (this.#byPrefix !== undefined) this.#file(this.#byPrefix, entry, entry.key);
  }

  /** Takes a timer that leaves `scheduled` out of its key's list. */
  dropKeyed(entry: Mutable<EffectEntry>): void {
    if (entry.key === undefined) return;
    const timers = this.keyed.get(entry.key);
    if (timers === undefined) return;
    timers.delete(entry);
    if (timers.size === 0) this.keyed.delete(entry.key);
    const byPrefix = this.#byPrefix;
    if (byPrefix === undefined) return;
    forEachPrefix(entry.key, (prefix) => {
      const under = byPrefix.get(prefix);
      under?.delete(entry);
      if (under?.size === 0) byPrefix.delete(prefix);
    });
  }

  /** The scheduled keyed timers whose key starts with `prefix` (a segment prefix), in no order. */
  underPrefix(prefix: string): readonly Mutable<EffectEntry>[] {
    if (this.#byPrefix === undefined) {
      const byPrefix = new Map<string, Set<Mutable<EffectEntry>>>();
      for (const [key, timers] of this.keyed)
        for (const entry of timers) this.#file(byPrefix, entry, key);
      this.#byPrefix = byPrefix;
    }
    return [...(this.#byPrefix.get(prefix) ?? [])];
  }

  #file(
    byPrefix: Map<string, Set<Mutable<EffectEntry>>>,
    entry: Mutable<EffectEntry>,
    key: string,
  ): void {
    forEachPrefix(key, (prefix) => {
      const under = byPrefix.get(prefix);
      if (under === undefined) byPrefix.set(prefix, new Set([entry]));
      else under.add(entry);
    });
  }
}

const COLON = 58;
const SLASH = 47;

/** Calls `visit` with each start of `key` that ends with `:` or `/` (what a prefix cancel may name). */
const forEachPrefix = (key: string, visit: (prefix: string) => void): void => {
  for (let at = 0; at < key.length; at += 1) {
    const code = key.charCodeAt(at);
    if (code === COLON || code === SLASH) visit(key.slice(0, at + 1));
  }
};

/**
 * Whether a cancel (or a replacement) from an event received at `eventTime`
 * reaches a scheduled timer: unless the timer was due at or before that
 * time (it was due before the event happened, so the event does not undo
 * it). A bare line has no time: its cancel reaches every scheduled timer of
 * its key, the choice that never fires a timer a cancel may have meant.
 */
const reaches = (entry: EffectEntry, eventTime: number | undefined): boolean =>
  eventTime === undefined || (entry.dueAt as number) > eventTime;

/** The in-memory store of reactor effects (see the module comment). */
export class ReactorEffects {
  readonly #entries = new Map<number, Mutable<EffectEntry>>();
  readonly #lanes = new Map<string, ReactorTimers>();
  /** Runnable entries without a time, in id order (they are created in id order). */
  readonly #immediate = new Set<Mutable<EffectEntry>>();
  /** Runnable entries with a time (released timers, retries). */
  readonly #timed = new Set<Mutable<EffectEntry>>();
  /** Ids changed since the last {@link ReactorEffects.takeChanged}: what a store must write next. */
  readonly #changed = new Set<number>();
  #nextId = 1;

  /** A book holding `saved` (a store's journal, read back); nothing counts as changed. */
  static restore(saved: SavedEffects): ReactorEffects {
    const book = new ReactorEffects();
    for (const [reactor, upTo] of Object.entries(saved.watermarks)) {
      const lane = book.#lane(reactor);
      lane.watermark = upTo;
      lane.marked = true;
    }
    // In id order: the immediate set relies on it.
    for (const entry of [...saved.entries].sort((a, b) => a.id - b.id)) {
      const copy: Mutable<EffectEntry> = { ...entry };
      book.#entries.set(copy.id, copy);
      book.#moveTo(copy, copy.state, true);
      if (copy.state === 'scheduled') book.#lane(copy.reactor).addKeyed(copy);
    }
    let highest = 0;
    for (const entry of saved.entries) highest = Math.max(highest, entry.id);
    book.#nextId = Math.max(saved.nextId, highest + 1);
    book.#changed.clear();
    return book;
  }

  /** The id the next effect gets. */
  get nextId(): number {
    return this.#nextId;
  }

  /** Every reactor's watermark that has been set (ms epoch). */
  watermarks(): Record<string, number> {
    const marks: Record<string, number> = {};
    for (const [reactor, lane] of this.#lanes) if (lane.marked) marks[reactor] = lane.watermark;
    return marks;
  }

  #lane(reactor: string): ReactorTimers {
    let lane = this.#lanes.get(reactor);
    if (lane === undefined) {
      lane = new ReactorTimers();
      this.#lanes.set(reactor, lane);
    }
    return lane;
  }

  /** Copies of the entries changed since the last call (by id), which then count as unchanged. */
  takeChanged(): EffectEntry[] {
    const changed: EffectEntry[] = [];
    for (const id of this.#changed) {
      const entry = this.#entries.get(id);
      if (entry !== undefined) changed.push({ ...entry });
    }
    this.#changed.clear();
    return changed.sort((a, b) => a.id - b.id);
  }

  /** When (ms epoch) a runnable or scheduled entry is next due; `undefined` when none waits. */
  nextDueAt(): number | undefined {
    if (this.#immediate.size > 0) return Number.NEGATIVE_INFINITY;
    const firsts = [...this.#lanes.values()].map((lane) => lane.scheduled.peek());
    const times = [...this.#timed, ...firsts].flatMap((entry) => entry?.dueAt ?? []);
    return times.length === 0 ? undefined : times.reduce((a, b) => Math.min(a, b));
  }

  /** The time (ms epoch) the reactor's timers were last released up to, or -∞ before any. */
  watermark(reactor: string): number {
    return this.#lanes.get(reactor)?.watermark ?? Number.NEGATIVE_INFINITY;
  }

  /**
   * Releases the reactor's timers due at or before `upTo` (the wall clock):
   * they become runnable and no cancel reaches them again. Call it only
   * once every stored event has been reacted to (see the module comment).
   */
  release(reactor: string, upTo: number): void {
    const lane = this.#lane(reactor);
    // No early return for an earlier time: timers scheduled since the last release are due by it
    // too (a clock that stepped back, or two workers' clocks), and the watermark never goes back.
    if (upTo > lane.watermark) {
      lane.watermark = upTo;
      lane.marked = true;
    }
    const { scheduled } = lane;
    for (let entry = scheduled.popDue(upTo); entry !== undefined; entry = scheduled.popDue(upTo)) {
      this.#moveTo(entry, 'ready');
      lane.dropKeyed(entry);
    }
  }

  /** Sets an entry's state, keeping the scheduled and runnable sets in step with it. */
  #moveTo(entry: Mutable<EffectEntry>, state: EffectState, fresh = false): void {
    this.#changed.add(entry.id);
    // A timer that leaves `scheduled` stays in its heap until it reaches the top (see DueHeap).
    const wasScheduled = entry.state === 'scheduled';
    entry.state = state;
    this.#immediate.delete(entry);
    this.#timed.delete(entry);
    if (state === 'ready' || state === 'retrying') {
      (entry.dueAt === undefined ? this.#immediate : this.#timed).add(entry);
    }
    if (state === 'scheduled') {
      if (fresh || !wasScheduled) this.#lane(entry.reactor).scheduled.push(entry);
    }
  }

  /** Applies a plan's steps in order. It releases nothing (see {@link ReactorEffects.release}). */
  applyPlan(plan: ReactionPlan): void {
    for (const step of plan.steps) {
      this.#applyStep(plan.reactor, plan.position, plan.eventTime, step);
    }
  }

  #applyStep(
    reactor: string,
    position: number,
    eventTime: number | undefined,
    step: PlanStep,
  ): void {
    const lane = this.#lane(reactor);
    if (step.kind === 'cancel' || step.kind === 'cancel-prefix') {
      const timers =
        step.kind === 'cancel'
          ? [...(lane.keyed.get(step.key) ?? [])]
          : lane.underPrefix(step.prefix);
      for (const entry of timers) {
        if (!reaches(entry, eventTime)) continue;
        lane.dropKeyed(entry);
        this.#moveTo(entry, 'cancelled');
      }
      return;
    }
    const id = this.#nextId++;
    const common = {
      id,
      reactor,
      position,
      index: step.index,
      idempotencyKey: step.idempotencyKey,
    };
    if (step.kind === 'park') {
      this.#entries.set(id, {
        ...common,
        key: undefined,
        effect: step.effect,
        dueAt: undefined,
        state: 'parked',
        attempts: 0,
        lastError: step.error,
        invalid: true,
      });
      this.#changed.add(id);
      return;
    }
    // Every timer waits for a release, even one due already: the events stored after it
    // may cancel it (a late history's signature), and only a caught-up runner has read them.
    const scheduled = step.dueAt !== undefined;
    const entry: Mutable<EffectEntry> = {
      ...common,
      key: step.key,
      effect: step.effect as JsonValue,
      dueAt: step.dueAt,
      state: scheduled ? 'scheduled' : 'ready',
      attempts: 0,
      lastError: '',
      invalid: false,
    };
    this.#entries.set(id, entry);
    this.#moveTo(entry, entry.state, true);
    if (scheduled) lane.addKeyed(entry);
  }

  /** Released effects whose time has come by `now` (ms epoch), in (dueAt, id) order. */
  ready(now: number): EffectEntry[] {
    return [...this.readyInOrder(now)];
  }

  /** {@link ReactorEffects.ready}, lazily: immediate effects (in id order) first, then timed ones sorted. */
  *readyInOrder(now: number): Generator<EffectEntry, void, undefined> {
    yield* this.#immediate;
    const timed = [...this.#timed].filter((entry) => (entry.dueAt as number) <= now);
    yield* timed.sort((a, b) => (a.dueAt as number) - (b.dueAt as number) || a.id - b.id);
  }

  /** Records a successful attempt. */
  succeeded(id: number): void {
    const entry = this.#entries.get(id);
    if (entry !== undefined) {
      entry.attempts += 1;
      this.#moveTo(entry, 'done');
    }
  }

  /** Records a failed attempt at `now`: retrying later, or parked once attempts are used up. */
  failed(id: number, error: string, policy: RetryPolicy, now: number, random?: () => number): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) {
      return;
    }
    const next = afterFailure(policy, entry.attempts + 1, random);
    this.recordFailure(id, error, next.kind === 'park' ? undefined : now + next.delayMs);
  }

  /**
   * Records a failed attempt whose fate an executor already decided (by the
   * same retry rule as {@link ReactorEffects.failed}): retrying at `retryAt`
   * (ms epoch), or parked when it is `undefined`.
   */
  recordFailure(id: number, error: string, retryAt: number | undefined): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) {
      return;
    }
    entry.attempts += 1;
    entry.lastError = error;
    if (retryAt === undefined) {
      this.#moveTo(entry, 'parked');
    } else {
      entry.dueAt = retryAt;
      this.#moveTo(entry, 'retrying');
    }
  }

  /** `effects retry`: parked effects run again with a fresh round of attempts. */
  retry(ids: readonly number[], now: number): EffectsChange {
    return this.#change(ids, (entry) => {
      if (entry.invalid) {
        return `the effect is invalid: ${entry.lastError}; skip it`;
      }
      entry.attempts = 0;
      entry.dueAt = now;
      this.#moveTo(entry, 'ready');
      return undefined;
    });
  }

  /** `effects skip`: parked effects are dropped (cancelled). */
  skip(ids: readonly number[]): EffectsChange {
    return this.#change(ids, (entry) => {
      this.#moveTo(entry, 'cancelled');
      return undefined;
    });
  }

  #change(
    ids: readonly number[],
    act: (entry: Mutable<EffectEntry>) => string | undefined,
  ): EffectsChange {
    const changed: number[] = [];
    const refused: { id: number; reason: string }[] = [];
    for (const id of ids) {
      const entry = this.#entries.get(id);
      const reason =
        entry === undefined
          ? 'no such effect'
          : entry.state !== 'parked'
            ? `the effect is ${entry.state}, not parked`
            : act(entry);
      if (reason === undefined) {
        changed.push(id);
      } else {
        refused.push({ id, reason });
      }
    }
    return { changed, refused };
  }

  /** Drops done and cancelled entries (once a store has saved them); returns the done ones per reactor. */
  prune(): Record<string, number> {
    const done: Record<string, number> = {};
    for (const [id, entry] of this.#entries) {
      if (entry.state !== 'done' && entry.state !== 'cancelled') continue;
      if (entry.state === 'done') done[entry.reactor] = (done[entry.reactor] ?? 0) + 1;
      this.#entries.delete(id);
      this.#changed.delete(id);
    }
    return done;
  }

  /** Every entry, by id (copies). */
  entries(): EffectEntry[] {
    return [...this.#entries.values()].map((entry) => ({ ...entry }));
  }

  /** The `effects --json` report of this book. */
  report(): EffectsReport {
    return reportOf(this.#entries.values());
  }
}
