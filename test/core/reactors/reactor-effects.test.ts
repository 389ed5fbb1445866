import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineReactor } from '../../../src/core/reactors/define-reactor.js';
import { planReaction } from '../../../src/core/reactors/plan-reaction.js';
import { ReactorEffects } from '../../../src/core/reactors/reactor-effects.js';
import { changeAt } from './reactor-fixtures.js';

const H = 3_600_000;
const T = Date.parse('2026-01-01T00:00:00.000Z');
const policy = { maxAttempts: 2, baseDelayMs: 100, maxDelayMs: 1000 };
const reactorOf = (items: unknown[]) =>
  // biome-ignore lint/suspicious/noExplicitAny: test plans.
  defineReactor({ name: 'r', react: () => items as any, retry: policy });
const apply = (book: ReactorEffects, position: number, at: number | undefined, items: unknown[]) =>
  book.applyPlan(planReaction(reactorOf(items), changeAt(position, at)));

describe('ReactorEffects', () => {
  it('cancels a timer from an event that happened before it was due, wherever that event was stored', () => {
    const book = new ReactorEffects();
    apply(book, 1, T, [{ type: 'remind', key: 'p', after: 72 * H }]);
    apply(book, 2, T + H, [{ type: 'cancel', key: 'p' }]);
    apply(book, 3, T + 2 * H, [{ type: 'remind', key: 'q', after: H }]);
    // Received exactly when q was due: q was due before it happened.
    apply(book, 4, T + 3 * H, [{ type: 'cancel', key: 'q' }]);
    // Late history, stored after events of a later time: a reminder already due when it is
    // made, cancelled by the signature 10 h after it (stored later still), and one whose
    // signature came 100 h after, when it had been due for 28 h.
    apply(book, 5, T + 240 * H, [{ type: 'note' }]);
    apply(book, 6, T - 480 * H, [{ type: 'remind', key: 'late', after: 72 * H }]);
    apply(book, 7, T - 470 * H, [{ type: 'cancel', key: 'late' }]);
    apply(book, 8, T - 480 * H, [{ type: 'remind', key: 'due', after: 72 * H }]);
    apply(book, 9, T - 380 * H, [{ type: 'cancel', key: 'due' }]);
    // Nothing is runnable before a release, however due: only the immediate effect.
    expect(book.ready(T + 300 * H).map((e) => e.id)).toEqual([3]);
    expect(book.entries().map((e) => [e.key, e.state])).toEqual([
      ['p', 'cancelled'],
      ['q', 'scheduled'],
      [undefined, 'ready'],
      ['late', 'cancelled'],
      ['due', 'scheduled'],
    ]);
    book.release('r', T + 240 * H);
    expect(book.ready(T + 240 * H).map((e) => e.key)).toEqual([undefined, 'due', 'q']);
    // Released: no cancel reaches it any more, however early its event.
    apply(book, 10, T - 500 * H, [{ type: 'cancel', key: 'q' }]);
    expect(book.entries()[1]).toMatchObject({ key: 'q', state: 'ready' });
  });

  it('cancels by key prefix every scheduled timer under it, whole segments only, by the same rule of time', () => {
    const book = new ReactorEffects();
    const remind = (key: string, after = 72 * H) => ({ type: 'remind', key, after });
    apply(book, 1, T, [remind('remind:1/1'), remind('remind:1/2'), remind('remind:10/1')]);
    apply(book, 2, T, [remind('remind:1'), remind('remind:1/3', H)]);
    // The first prefix cancel builds the index; what is scheduled after it is filed too.
    apply(book, 3, T + 2 * H, [{ type: 'cancel', keyPrefix: 'remind:1/' }]);
    apply(book, 4, T + 2 * H, [remind('remind:1/4'), remind('remind:2/1')]);
    apply(book, 5, T + 3 * H, [{ type: 'cancel', keyPrefix: 'remind:' }]);
    expect(book.entries().map((e) => [e.key, e.state])).toEqual([
      ['remind:1/1', 'cancelled'],
      ['remind:1/2', 'cancelled'],
      ['remind:10/1', 'cancelled'],
      ['remind:1', 'cancelled'],
      // Due an hour after it was made, before either prefix cancel happened: not reached.
      ['remind:1/3', 'scheduled'],
      ['remind:1/4', 'cancelled'],
      ['remind:2/1', 'cancelled'],
    ]);
    apply(book, 6, T + 4 * H, [remind('remind:3/1')]);
    book.release('r', T + 4 * H);
    // Released: out of the index; a timer made after that is filed under its prefixes.
    apply(book, 7, T + 4 * H, [remind('remind:3/2')]);
    apply(book, 8, T, [{ type: 'cancel', keyPrefix: 'remind:' }]);
    expect(
      book
        .entries()
        .map((e) => [e.key, e.state])
        .slice(-2),
    ).toEqual([
      ['remind:3/1', 'cancelled'],
      ['remind:3/2', 'cancelled'],
    ]);
    expect(book.entries()[4]).toMatchObject({ key: 'remind:1/3', state: 'ready' });
  });

  it('keeps one pending timer per key when replacing', () => {
    const book = new ReactorEffects();
    apply(book, 1, T, [{ type: 'remind', key: 'p', after: H }]);
    apply(book, 2, T + 1, [{ type: 'remind', key: 'p', after: 2 * H }]);
    expect(book.entries().map((e) => e.state)).toEqual(['cancelled', 'scheduled']);
  });

  it('reports the timers not yet released with their due time and key, soonest first', () => {
    const book = new ReactorEffects();
    apply(book, 1, T, [
      { type: 'late', key: 'k:late', after: 2 * H },
      { type: 'now' },
      { type: 'soon', after: H },
    ]);
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(book.report().timers).toEqual([
      { id: 3, reactor: 'r', key: null, dueAt: iso(T + H), idempotencyKey: 'r:1:2' },
      { id: 1, reactor: 'r', key: 'k:late', dueAt: iso(T + 2 * H), idempotencyKey: 'r:1:0' },
    ]);
    book.release('r', T + H);
    expect(book.report().timers.map((t) => t.id)).toEqual([1]);
  });

  it('runs ready effects in (dueAt, id) order, retries with backoff and parks after maxAttempts', () => {
    const book = new ReactorEffects();
    apply(book, 1, T, [{ type: 'b', after: 10 }, { type: 'a' }, { type: 'c', after: 5 }]);
    book.release('r', T + 10);
    expect(book.ready(T + 10).map((e) => e.index)).toEqual([1, 2, 0]);
    book.failed(2, 'down', policy, T + 10, () => 0);
    expect(book.entries()[1]).toMatchObject({ state: 'retrying', dueAt: T + 60, attempts: 1 });
    expect(book.ready(T + 59).map((e) => e.id)).toEqual([3, 1]);
    book.failed(2, 'still down', policy, T + 60);
    book.succeeded(1);
    expect(book.report()).toEqual({
      reactors: [{ name: 'r', pending: 1, parked: 1, done: 1 }],
      parked: [
        {
          id: 2,
          reactor: 'r',
          idempotencyKey: 'r:1:1',
          attempts: 2,
          lastError: 'still down',
          effect: { type: 'a' },
        },
      ],
      // Every timer was released: the pending effect is ready, not a scheduled timer.
      timers: [],
    });
    expect(book.skip([1, 9])).toEqual({
      changed: [],
      refused: [
        { id: 1, reason: 'the effect is done, not parked' },
        { id: 9, reason: 'no such effect' },
      ],
    });
    expect(book.retry([2], T + 100)).toEqual({ changed: [2], refused: [] });
    expect(book.ready(T + 100).map((e) => e.id)).toEqual([3, 2]);
  });

  it('does not hold back later effects of the same sign request behind a retrying or parked one', () => {
    const book = new ReactorEffects();
    apply(book, 1, T, [{ type: 'crm', request: 1000 }]);
    book.failed(1, 'down', policy, T, () => 1);
    apply(book, 2, T + 1, [{ type: 'crm', request: 1000 }]);
    expect(book.ready(T + 1).map((e) => e.id)).toEqual([2]);
    book.failed(1, 'down', policy, T + 200);
    apply(book, 3, T + 2, [{ type: 'crm', request: 1000 }]);
    expect(book.entries()[0]?.state).toBe('parked');
    expect(book.ready(T + 2).map((e) => e.id)).toEqual([2, 3]);
  });

  it('refuses to retry an invalid parked effect but skips it', () => {
    const book = new ReactorEffects();
    apply(book, 1, undefined, [{ type: 'x', after: 1 }]);
    expect(book.retry([1], T).refused[0]?.reason).toBe(
      'the effect is invalid: a timed effect on a bare line (the event has no receivedAt); skip it',
    );
    expect(book.skip([1])).toEqual({ changed: [1], refused: [] });
  });

  it('law: a timer fires at the first release that finds it due, unless an event stored after it and before that release, received before it was due, cancelled or replaced its key (or cancelled a prefix of it)', () => {
    // Events in any order of time (late ones among live ones), releases in between.
    const step = fc.oneof(
      fc.record({
        kind: fc.constantFrom('timer' as const, 'cancel' as const),
        at: fc.integer({ min: 0, max: 200 * H }),
        key: fc.constantFrom('a/1', 'a/2', 'ab/1', 'b:1'),
        after: fc.integer({ min: 0, max: 100 * H }),
      }),
      fc.record({
        kind: fc.constant('prefix' as const),
        at: fc.integer({ min: 0, max: 200 * H }),
        key: fc.constantFrom('a/', 'ab/', 'b:'),
      }),
      fc.record({
        kind: fc.constant('release' as const),
        at: fc.integer({ min: 0, max: 300 * H }),
      }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const book = new ReactorEffects();
        const timers: { step: number; key: string; due: number }[] = [];
        steps.forEach((s, i) => {
          if (s.kind === 'release') {
            book.release('r', T + s.at);
            return;
          }
          const item =
            s.kind === 'cancel'
              ? { type: 'cancel', key: s.key }
              : s.kind === 'prefix'
                ? { type: 'cancel', keyPrefix: s.key }
                : { type: 'remind', key: s.key, after: s.after };
          apply(book, i + 1, T + s.at, [item]);
          if (s.kind === 'timer') timers.push({ step: i, key: s.key, due: T + s.at + s.after });
        });
        // The rule, written again from the steps alone.
        const expected = timers.map(({ step: made, key, due }) => {
          const release = steps.findIndex(
            (s, i) => i > made && s.kind === 'release' && T + s.at >= due,
          );
          const end = release < 0 ? steps.length : release;
          const cancelled = steps.some(
            (s, i) =>
              i > made &&
              i < end &&
              s.kind !== 'release' &&
              (s.kind === 'prefix' ? key.startsWith(s.key) : s.key === key) &&
              T + s.at < due,
          );
          return cancelled ? 'cancelled' : release < 0 ? 'scheduled' : 'ready';
        });
        expect(book.entries().map((e) => e.state)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
