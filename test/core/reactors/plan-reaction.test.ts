import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineReactor } from '../../../src/core/reactors/define-reactor.js';
import { planReaction } from '../../../src/core/reactors/plan-reaction.js';
import type { Effect } from '../../../src/core/reactors/reactor-types.js';
import { changeAt } from './reactor-fixtures.js';

const T = Date.parse('2026-01-01T00:00:00.000Z');
const reactorOf = (items: () => unknown, sql?: Record<string, (effect: Effect) => unknown>) =>
  // biome-ignore lint/suspicious/noExplicitAny: react returns whatever the test needs.
  defineReactor({ name: 'r', react: items as any, sql: sql as any });
const errorsOf = (items: unknown[], receivedAt: number | undefined = T) =>
  planReaction(
    reactorOf(() => items),
    changeAt(7, receivedAt),
  ).steps.map((step) => (step.kind === 'park' ? step.error : step.kind));

describe('planReaction', () => {
  it('enqueues effects exactly as returned, with keys, due times and a cancel before a keyed one', () => {
    const remind = { type: 'remind', key: 'p1', after: 1000, note: { a: [1] } };
    const plan = planReaction(
      reactorOf(() => [
        { type: 'fetch' },
        remind,
        { type: 'at', at: '2026-02-01T00:00:00Z' },
        { type: 'cancel', key: 'k' },
      ]),
      changeAt(7, T),
    );
    expect(plan.eventTime).toBe(T);
    expect(plan.steps).toEqual([
      {
        kind: 'enqueue',
        index: 0,
        idempotencyKey: 'r:7:0',
        effect: { type: 'fetch' },
        key: undefined,
        dueAt: undefined,
        sql: undefined,
      },
      { kind: 'cancel', key: 'p1' },
      {
        kind: 'enqueue',
        index: 1,
        idempotencyKey: 'r:7:1',
        effect: remind,
        key: 'p1',
        dueAt: T + 1000,
        sql: undefined,
      },
      {
        kind: 'enqueue',
        index: 2,
        idempotencyKey: 'r:7:2',
        effect: { type: 'at', at: '2026-02-01T00:00:00Z' },
        key: undefined,
        dueAt: Date.parse('2026-02-01T00:00:00Z'),
        sql: undefined,
      },
      { kind: 'cancel', key: 'k' },
    ]);
    const enqueued = plan.steps[2];
    // The very object react returned, not a copy: it is stored exactly as returned.
    expect(enqueued?.kind === 'enqueue' ? enqueued.effect : undefined).toBe(remind);
  });

  it('plans a cancel by key prefix', () => {
    const plan = planReaction(
      reactorOf(() => [
        { type: 'cancel', keyPrefix: 'remind:1/' },
        { type: 'cancel', keyPrefix: 'remind:' },
      ]),
      changeAt(2, T),
    );
    expect(plan.steps).toEqual([
      { kind: 'cancel-prefix', prefix: 'remind:1/' },
      { kind: 'cancel-prefix', prefix: 'remind:' },
    ]);
  });

  it('parks each invalid item with the reason and keeps the valid ones', () => {
    expect(
      errorsOf([
        { type: 1 },
        { type: 'x', after: 1, at: '2026-01-01T00:00:00Z' },
        { type: 'x', after: -1 },
        { type: 'x', at: 'soon' },
        { type: 'cancel' },
        { type: 'cancel', key: 'k', keyPrefix: 'k:' },
        { type: 'cancel', keyPrefix: 'remind:1' },
        { type: 'cancel', keyPrefix: 7 },
        { type: 'x', key: 3 },
        { type: 'x', when: new Date() },
        [1],
        { type: 'ok' },
      ]),
    ).toEqual([
      'the effect has no string type',
      'the effect has both after and at',
      'after must be a finite number of milliseconds ≥ 0',
      'at must be an ISO 8601 time',
      'a cancel without a key or a keyPrefix',
      'a cancel with both key and keyPrefix',
      'keyPrefix must be a string that ends with ":" or "/"',
      'keyPrefix must be a string that ends with ":" or "/"',
      'key must be a string',
      'the effect is not plain JSON',
      'the effect is not an object',
      'enqueue',
    ]);
  });

  it('refuses timed effects on a bare line, which has no time', () => {
    const plan = planReaction(
      reactorOf(() => [{ type: 'x', after: 5 }, { type: 'y' }]),
      changeAt(3, undefined),
    );
    expect(plan.eventTime).toBeUndefined();
    expect(plan.steps.map((s) => s.kind)).toEqual(['park', 'enqueue']);
    expect(plan.steps[0]).toMatchObject({
      error: 'a timed effect on a bare line (the event has no receivedAt)',
      effect: { type: 'x', after: 5 },
    });
  });

  it('turns a throwing react into one parked entry and never runs a thrown sql into the plan', () => {
    const plan = planReaction(
      reactorOf(() => {
        throw new Error('bad\u0007');
      }),
      changeAt(9, T),
    );
    expect(plan.steps).toEqual([
      {
        kind: 'park',
        index: 0,
        idempotencyKey: 'r:9:0',
        effect: null,
        error: 'react threw: bad\\u0007',
      },
    ]);
    const sql = reactorOf(() => [{ type: 'note' }, { type: 'note', after: 1 }, { type: 'boom' }], {
      note: (effect) => ({ text: 'insert into notes values ($1)', values: [effect.type] }),
      boom: () => {
        throw new Error('no');
      },
    });
    const steps = planReaction(sql, changeAt(1, T)).steps;
    expect(steps[0]).toMatchObject({
      kind: 'enqueue',
      sql: { text: 'insert into notes values ($1)', values: ['note'] },
    });
    expect(steps[1]).toMatchObject({ kind: 'park', error: 'an SQL effect cannot be timed' });
    expect(steps[2]).toMatchObject({ kind: 'park', error: 'sql.boom threw: no' });
  });

  it('never throws on arbitrary react output, and every step has a printable idempotency key', () => {
    fc.assert(
      fc.property(
        fc.anything({ withObjectString: true, withNullPrototype: true }),
        fc.option(fc.integer({ min: 0, max: 4e12 })),
        (output, receivedAt) => {
          const plan = planReaction(
            reactorOf(() => output),
            changeAt(1, receivedAt ?? undefined),
          );
          for (const step of plan.steps) {
            if (step.kind === 'enqueue' || step.kind === 'park') {
              expect(step.idempotencyKey).toMatch(/^[\x21-\x7e]+$/);
            }
            if (step.kind === 'enqueue') expect(typeof step.effect.type).toBe('string');
          }
        },
      ),
    );
  });
});
