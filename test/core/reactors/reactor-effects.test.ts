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
  it('cancels a pending reminder in event time but not one already released', () => {
    const book = new ReactorEffects();
    apply(book, 1, T, [{ type: 'remind', key: 'p', after: 72 * H }]);
    apply(book, 2, T + H, [{ type: 'cancel', key: 'p' }]);
    apply(book, 3, T + 2 * H, [{ type: 'remind', key: 'q', after: H }]);
    apply(book, 4, T + 3 * H, [{ type: 'cancel', key: 'q' }]);
    expect(book.entries().map((e) => e.state)).toEqual(['cancelled', 'ready']);
    expect(book.ready(T + 3 * H).map((e) => e.effect)).toEqual([
      { type: 'remind', key: 'q', after: H },
    ]);
  });

  it('keeps one pending timer per key when replacing', () => {
    const book = new ReactorEffects();
    apply(book, 1, T, [{ type: 'remind', key: 'p', after: H }]);
    apply(book, 2, T + 1, [{ type: 'remind', key: 'p', after: 2 * H }]);
    expect(book.entries().map((e) => e.state)).toEqual(['cancelled', 'scheduled']);
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

  it('laws: a cancel never affects a released timer; at most one scheduled timer per key', () => {
    const step = fc.record({
      gap: fc.integer({ min: 0, max: 3 * H }),
      key: fc.constantFrom('a', 'b', 'c'),
      cancel: fc.boolean(),
      after: fc.integer({ min: 0, max: 4 * H }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const book = new ReactorEffects();
        let at = T;
        steps.forEach((s, i) => {
          at += s.gap;
          const releasedBefore = book
            .entries()
            .filter((e) => e.state === 'ready')
            .map((e) => e.id);
          apply(book, i + 1, at, [
            s.cancel
              ? { type: 'cancel', key: s.key }
              : { type: 'remind', key: s.key, after: s.after },
          ]);
          const entries = book.entries();
          for (const id of releasedBefore)
            expect(entries.find((e) => e.id === id)?.state).toBe('ready');
          for (const key of ['a', 'b', 'c']) {
            expect(
              entries.filter((e) => e.key === key && e.state === 'scheduled').length,
            ).toBeLessThanOrEqual(1);
          }
          for (const e of entries) {
            if (e.state === 'scheduled') expect(e.dueAt).toBeGreaterThan(at);
          }
        });
      }),
    );
  });
});
