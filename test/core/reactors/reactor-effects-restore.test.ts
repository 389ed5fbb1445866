import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReactionPlan } from '../../../src/core/reactors/plan-reaction.js';
import { ReactorEffects } from '../../../src/core/reactors/reactor-effects.js';

const HOUR = 3600 * 1000;

/** Random plans of one reactor: keyed timers, cancels and immediate effects, in time order. */
const plansArb = fc
  .array(
    fc.record({
      gap: fc.integer({ min: 0, max: 100 * HOUR }),
      kind: fc.constantFrom('timer', 'cancel', 'now'),
      key: fc.constantFrom('a', 'b', 'c'),
      after: fc.integer({ min: 1, max: 80 * HOUR }),
    }),
    { maxLength: 40 },
  )
  .map((items) => {
    let at = Date.UTC(2025, 0, 1);
    return items.map((item, i): ReactionPlan => {
      at += item.gap;
      const position = i + 1;
      const idempotencyKey = `r:${position}:0`;
      const effect = { type: item.kind };
      const steps: ReactionPlan['steps'] =
        item.kind === 'cancel'
          ? [{ kind: 'cancel', key: item.key }]
          : item.kind === 'now'
            ? [
                {
                  kind: 'enqueue',
                  index: 0,
                  idempotencyKey,
                  effect,
                  key: undefined,
                  dueAt: undefined,
                  sql: undefined,
                },
              ]
            : [
                { kind: 'cancel', key: item.key },
                {
                  kind: 'enqueue',
                  index: 0,
                  idempotencyKey,
                  effect,
                  key: item.key,
                  dueAt: at + item.after,
                  sql: undefined,
                },
              ];
      return { reactor: 'r', position, eventTime: at, steps };
    });
  });

describe('ReactorEffects.restore', () => {
  it('a book restored from its entries, watermarks and next id goes on exactly as the original', () => {
    fc.assert(
      fc.property(plansArb, fc.integer({ min: 0, max: 40 }), (plans, split) => {
        const original = new ReactorEffects();
        for (const plan of plans.slice(0, split)) original.applyPlan(plan);
        const restored = ReactorEffects.restore({
          entries: original.entries(),
          watermarks: original.watermarks(),
          nextId: original.nextId,
        });
        expect(restored.takeChanged()).toEqual([]);
        for (const plan of plans.slice(split)) {
          original.applyPlan(plan);
          restored.applyPlan(plan);
        }
        const end = Date.UTC(2026, 0, 1);
        original.release('r', end);
        restored.release('r', end);
        expect(restored.entries()).toEqual(original.entries());
        expect(restored.ready(end)).toEqual(original.ready(end));
        expect(restored.nextDueAt()).toEqual(original.nextDueAt());
      }),
    );
  });

  it('reports what changed since the last call, once', () => {
    const book = new ReactorEffects();
    book.applyPlan({
      reactor: 'r',
      position: 1,
      eventTime: 0,
      steps: [
        {
          kind: 'enqueue',
          index: 0,
          idempotencyKey: 'r:1:0',
          effect: { type: 'x' },
          key: undefined,
          dueAt: undefined,
          sql: undefined,
        },
      ],
    });
    expect(book.takeChanged().map((entry) => [entry.id, entry.state])).toEqual([[1, 'ready']]);
    expect(book.takeChanged()).toEqual([]);
    book.succeeded(1);
    expect(book.takeChanged().map((entry) => [entry.id, entry.state, entry.attempts])).toEqual([
      [1, 'done', 1],
    ]);
  });
});
