/**
 * The executor core both engines run on, over an in-memory storage: retries,
 * parking, the in-flight bound, claims given back, and the stop. The law: an
 * effect is never executed once it is done or parked, and never more often
 * than its policy's attempts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineReactor } from '../../../src/core/reactors/define-reactor.js';
import { MAX_IN_FLIGHT } from '../../../src/core/reactors/in-flight.js';
import type { Reactor, RetryPolicy } from '../../../src/core/reactors/reactor-types.js';
import {
  type AttemptVerdict,
  type ClaimedEffect,
  EffectExecutorCore,
  type EffectStorage,
  verdictOf,
} from '../../../src/engine/reactors/effect-executor-core.js';

type State = 'ready' | 'retrying' | 'done' | 'parked';

interface Row {
  readonly id: number;
  state: State;
  attempts: number;
  dueAt: number;
  lastError: string;
}

/** Effects kept in memory; verdicts become durable only when `makeDurable` says so. */
class MemoryStorage implements EffectStorage<ClaimedEffect<number>> {
  readonly rows = new Map<number, Row>();
  readonly verdicts: [number, AttemptVerdict][] = [];
  /** Ids whose claim does not hold any more (`holds` says no). */
  readonly lapsed = new Set<number>();
  /** Verdicts recorded since the last `makeDurable`. */
  unsaved = 0;

  constructor(
    readonly clock: { now: number },
    readonly reactor = 'memory',
  ) {}

  add(count: number): void {
    for (let i = 0; i < count; i += 1) {
      const id = this.rows.size + 1;
      this.rows.set(id, { id, state: 'ready', attempts: 0, dueAt: 0, lastError: '' });
    }
  }

  claimDue(room: number, running: ReadonlyMap<number, unknown>): ClaimedEffect<number>[] {
    return [...this.rows.values()]
      .filter(
        (row) =>
          (row.state === 'ready' || row.state === 'retrying') &&
          row.dueAt <= this.clock.now &&
          !running.has(row.id),
      )
      .slice(0, room)
      .map((row) => ({
        id: row.id,
        reactor: this.reactor,
        idempotencyKey: `${this.reactor}:${row.id}`,
        effect: { type: 'call', id: row.id },
        attempts: row.attempts,
      }));
  }

  holds(claimed: ClaimedEffect<number>): boolean {
    return !this.lapsed.has(claimed.id);
  }

  record(claimed: ClaimedEffect<number>, verdict: AttemptVerdict): void {
    this.verdicts.push([claimed.id, verdict]);
    this.unsaved += 1;
    const row = this.rows.get(claimed.id) as Row;
    if (verdict.kind === 'done') {
      row.state = 'done';
      row.attempts = verdict.attempts;
    } else if (verdict.kind === 'retrying') {
      row.state = 'retrying';
      row.attempts = verdict.attempts;
      row.dueAt = verdict.dueAt;
      row.lastError = verdict.error;
    } else if (verdict.kind === 'parked') {
      row.state = 'parked';
      row.attempts = verdict.attempts;
      row.lastError = verdict.error;
    }
  }

  /** The verdicts so far are saved: their slots may go. */
  makeDurable(core: EffectExecutorCore<ClaimedEffect<number>>): void {
    core.durable(this.unsaved);
    this.unsaved = 0;
  }

  /** When the next ready or retrying effect is due, or `undefined`. */
  nextDue(): number | undefined {
    const due = [...this.rows.values()]
      .filter((row) => row.state === 'ready' || row.state === 'retrying')
      .map((row) => row.dueAt);
    return due.length === 0 ? undefined : Math.min(...due);
  }
}

const POLICY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000 };

const reactorWith = (
  execute: Reactor['execute'],
  retry: RetryPolicy = POLICY,
  name = 'memory',
): Reactor => defineReactor({ name, react: () => [], execute, retry });

/** Lets the attempts started so far run to their end (the executes below never wait on I/O). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
};

describe('verdictOf', () => {
  const context = { policy: POLICY, stopping: false, now: () => 1000, random: () => 0 };

  it('is done after a success, with the attempt counted', () => {
    expect(verdictOf({ ok: true }, 2, context)).toEqual({ kind: 'done', attempts: 2 });
  });

  it('retries after the backoff while attempts are left, then parks', () => {
    expect(verdictOf({ ok: false, error: 'down' }, 1, context)).toEqual({
      kind: 'retrying',
      attempts: 1,
      error: 'down',
      dueAt: 1050,
    });
    expect(verdictOf({ ok: false, error: 'down' }, 3, context)).toEqual({
      kind: 'parked',
      attempts: 3,
      error: 'down',
    });
  });

  it('calls a failure once the stop fired an interruption, whatever the attempts', () => {
    const stopping = { ...context, stopping: true };
    expect(verdictOf({ ok: false, error: 'aborted' }, 3, stopping)).toEqual({
      kind: 'interrupted',
    });
    expect(verdictOf({ ok: true }, 1, stopping)).toEqual({ kind: 'done', attempts: 1 });
  });
});

describe('EffectExecutorCore', () => {
  it('retries a failing effect after its backoff and parks it once its attempts are used up', async () => {
    const clock = { now: 0 };
    const storage = new MemoryStorage(clock);
    storage.add(1);
    const seen: number[] = [];
    const reactor = reactorWith((_effect, context) => {
      seen.push(context.attempt);
      throw new Error('down');
    });
    const observed: string[] = [];
    const core = new EffectExecutorCore({
      storage,
      reactors: [reactor],
      now: () => clock.now,
      random: () => 1,
      onAttempt: (name, result) => observed.push(`${name} ${result}`),
    });
    for (let turn = 0; turn < 6; turn += 1) {
      await core.claimAndStart();
      await settle();
      storage.makeDurable(core);
      clock.now = storage.nextDue() ?? clock.now + 1;
    }
    expect(seen).toEqual([1, 2, 3]);
    expect(storage.verdicts.map(([, verdict]) => verdict.kind)).toEqual([
      'retrying',
      'retrying',
      'parked',
    ]);
    // Equal jitter with random() = 1: the whole nominal delay, doubling.
    expect(
      storage.verdicts.map(([, verdict]) => ('dueAt' in verdict ? verdict.dueAt : null)),
    ).toEqual([100, 300, null]);
    expect(core.counts()).toEqual({ succeeded: 0, failed: 3, interrupted: 0 });
    expect(observed).toEqual(['memory failed', 'memory failed', 'memory failed']);
  });

  it('runs at most MAX_IN_FLIGHT effects, and frees a slot only once its verdict is durable', async () => {
    const clock = { now: 0 };
    const storage = new MemoryStorage(clock);
    storage.add(MAX_IN_FLIGHT + 10);
    let executed = 0;
    const core = new EffectExecutorCore({
      storage,
      reactors: [
        reactorWith(() => {
          executed += 1;
        }),
      ],
      now: () => clock.now,
    });
    expect(await core.claimAndStart()).toBe(MAX_IN_FLIGHT);
    await settle();
    expect(core.running).toBe(0);
    expect(core.notDurable).toBe(MAX_IN_FLIGHT);
    // Settled but not durable: they still hold every slot.
    expect(await core.claimAndStart()).toBe(0);
    storage.makeDurable(core);
    expect(await core.claimAndStart()).toBe(10);
    await settle();
    expect(executed).toBe(MAX_IN_FLIGHT + 10);
    expect(core.counts().succeeded).toBe(MAX_IN_FLIGHT + 10);
  });

  it('gives back a claim that no longer holds, unattempted and uncounted, and frees its slot once durable', async () => {
    const clock = { now: 0 };
    const storage = new MemoryStorage(clock);
    storage.add(2);
    storage.lapsed.add(1);
    const executed: number[] = [];
    let settled = 0;
    const core = new EffectExecutorCore({
      storage,
      reactors: [reactorWith((effect) => void executed.push(effect.id as number))],
      now: () => clock.now,
      onSettled: () => {
        settled += 1;
      },
    });
    expect(await core.claimAndStart()).toBe(2);
    expect(core.running).toBe(1);
    await settle();
    expect(executed).toEqual([2]);
    expect(core.running).toBe(0);
    expect(storage.verdicts).toEqual([
      [1, { kind: 'given-back' }],
      [2, { kind: 'done', attempts: 1 }],
    ]);
    expect(core.counts()).toEqual({ succeeded: 1, failed: 0, interrupted: 0 });
    expect(settled).toBe(2);
    expect(core.notDurable).toBe(2);
    storage.makeDurable(core);
    expect(core.notDurable).toBe(0);
  });

  it('at the stop, fires ctx.signal, claims nothing more, and calls a failure then an interruption', async () => {
    const clock = { now: 0 };
    const storage = new MemoryStorage(clock);
    storage.add(2);
    const reactor = reactorWith(
      (_effect, context) =>
        new Promise<void>((_resolve, reject) => {
          context.signal.addEventListener('abort', () => reject(new Error('stopped')));
        }),
    );
    const core = new EffectExecutorCore({ storage, reactors: [reactor], now: () => clock.now });
    expect(await core.claimAndStart()).toBe(2);
    expect(core.runningByReactor()).toEqual(new Map([['memory', 2]]));
    expect(await core.stop(1000)).toBe(0);
    expect(storage.verdicts.map(([, verdict]) => verdict.kind)).toEqual([
      'interrupted',
      'interrupted',
    ]);
    expect(core.counts()).toEqual({ succeeded: 0, failed: 0, interrupted: 2 });
    expect([...storage.rows.values()].map((row) => row.attempts)).toEqual([0, 0]);
    storage.makeDurable(core);
    expect(await core.claimAndStart()).toBe(0);
  });

  it('resolves the stop after the grace to the effects still running', async () => {
    const clock = { now: 0 };
    const storage = new MemoryStorage(clock);
    storage.add(1);
    const core = new EffectExecutorCore({
      storage,
      reactors: [reactorWith(() => new Promise<void>(() => undefined))],
      now: () => clock.now,
    });
    await core.claimAndStart();
    expect(await core.stop(10)).toBe(1);
  });

  it('never executes an effect once it is done or parked, nor more often than its attempts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 12 }),
        // Per effect, whether each of its executions succeeds (cycled).
        fc.array(fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), {
          minLength: 12,
          maxLength: 12,
        }),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 20 }),
        async (maxAttempts, effects, outcomes, durableEvery) => {
          const clock = { now: 0 };
          const storage = new MemoryStorage(clock);
          storage.add(effects);
          const executions = new Map<number, number>();
          const wrong: string[] = [];
          const reactor = reactorWith(
            (effect, context) => {
              const id = effect.id as number;
              const row = storage.rows.get(id) as Row;
              if (row.state === 'done' || row.state === 'parked') {
                wrong.push(`${id} executed while ${row.state}`);
              }
              if (context.attempt > maxAttempts) wrong.push(`${id} attempt ${context.attempt}`);
              const count = (executions.get(id) ?? 0) + 1;
              executions.set(id, count);
              const plan = outcomes[id - 1] as boolean[];
              if (!plan[(count - 1) % plan.length]) throw new Error(`no ${count}`);
            },
            { maxAttempts, baseDelayMs: 10, maxDelayMs: 40 },
          );
          const core = new EffectExecutorCore({
            storage,
            reactors: [reactor],
            now: () => clock.now,
          });
          for (let turn = 0; turn < 400 && storage.nextDue() !== undefined; turn += 1) {
            await core.claimAndStart();
            await settle();
            // Verdicts become durable only now and then, as a journal or a batch would write them.
            if (turn % (durableEvery[turn % durableEvery.length] as number) === 0) {
              storage.makeDurable(core);
            }
            clock.now = Math.max(clock.now + 1, storage.nextDue() ?? 0);
          }
          expect(wrong).toEqual([]);
          for (const row of storage.rows.values()) {
            expect(['done', 'parked']).toContain(row.state);
            expect(row.attempts).toBeLessThanOrEqual(maxAttempts);
            expect(executions.get(row.id)).toBe(row.attempts);
          }
          const { succeeded, failed } = core.counts();
          expect(succeeded + failed).toBe(
            [...executions.values()].reduce((sum, count) => sum + count, 0),
          );
        },
      ),
      { numRuns: 100 },
    );
  });
});
