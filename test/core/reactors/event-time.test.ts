import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineReactor } from '../../../src/core/reactors/define-reactor.js';
import { planReaction } from '../../../src/core/reactors/plan-reaction.js';
import type { Change } from '../../../src/core/reactors/reactor-types.js';

const reactor = defineReactor({ name: 'r', react: () => [] });
const changeAt = (receivedAt: string | undefined): Change =>
  ({
    event: {},
    position: 1,
    receivedAt,
    deliveryId: undefined,
    before: {},
    after: {},
  }) as unknown as Change;

describe('the event time of a plan', () => {
  it('is Date.parse of receivedAt, for canonical times (the fast path) and any other text', () => {
    const canonical = fc
      .integer({ min: -8.64e15, max: 8.64e15 })
      .map((ms) => new Date(ms).toISOString());
    const other = fc.oneof(
      fc.string(),
      fc.constantFrom(
        '2025-02-30T00:00:00.000Z',
        '2025-13-01T00:00:00.000Z',
        '2025-01-01T24:00:00.000Z',
        '2025-01-01T00:00:00Z',
        '2025-01-01T00:00:00.000+02:00',
        '2025-01-0aT00:00:00.000Z',
        '2025-01-01T00:00:00.0a0Z',
      ),
    );
    fc.assert(
      fc.property(fc.oneof(canonical, other), (text) => {
        const parsed = Date.parse(text);
        const expected = Number.isFinite(parsed) ? parsed : undefined;
        expect(planReaction(reactor, changeAt(text)).eventTime).toBe(expected);
      }),
      { numRuns: 2000 },
    );
    expect(planReaction(reactor, changeAt(undefined)).eventTime).toBeUndefined();
  });
});
