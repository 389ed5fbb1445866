import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { afterFailure, retryDelayBounds } from '../../../src/core/reactors/retry-policy.js';

const policies = fc
  .record({
    maxAttempts: fc.integer({ min: 1, max: 20 }),
    baseDelayMs: fc.integer({ min: 1, max: 100_000 }),
    maxDelayMs: fc.integer({ min: 1, max: 10_000_000 }),
  })
  .filter((policy) => policy.maxDelayMs >= policy.baseDelayMs);

describe('retry policy', () => {
  it('doubles from the base up to the cap, with equal jitter', () => {
    const policy = { maxAttempts: 8, baseDelayMs: 1000, maxDelayMs: 5000 };
    expect(retryDelayBounds(policy, 1)).toEqual({ minMs: 500, maxMs: 1000 });
    expect(retryDelayBounds(policy, 2)).toEqual({ minMs: 1000, maxMs: 2000 });
    expect(retryDelayBounds(policy, 3)).toEqual({ minMs: 2000, maxMs: 4000 });
    expect(retryDelayBounds(policy, 4)).toEqual({ minMs: 2500, maxMs: 5000 });
    expect(retryDelayBounds(policy, 60)).toEqual({ minMs: 2500, maxMs: 5000 });
  });

  it('draws every delay within the bounds, monotone in failures and capped', () => {
    fc.assert(
      fc.property(
        policies,
        fc.integer({ min: 1, max: 2000 }),
        fc.double({ min: 0, max: 1 }),
        (policy, failures, draw) => {
          const bounds = retryDelayBounds(policy, failures);
          const next = retryDelayBounds(policy, failures + 1);
          expect(bounds.maxMs).toBeLessThanOrEqual(policy.maxDelayMs);
          expect(bounds.minMs).toBeLessThanOrEqual(bounds.maxMs);
          expect(next.maxMs).toBeGreaterThanOrEqual(bounds.maxMs);
          const outcome = afterFailure(
            { ...policy, maxAttempts: failures + 1 },
            failures,
            () => draw,
          );
          expect(outcome.kind).toBe('retry');
          if (outcome.kind === 'retry') {
            expect(outcome.delayMs).toBeGreaterThanOrEqual(bounds.minMs);
            expect(outcome.delayMs).toBeLessThanOrEqual(bounds.maxMs);
            expect(Number.isSafeInteger(outcome.delayMs)).toBe(true);
          }
        },
      ),
    );
  });

  it('parks once maxAttempts attempts were made', () => {
    const policy = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100 };
    expect(afterFailure(policy, 2).kind).toBe('retry');
    expect(afterFailure(policy, 3)).toEqual({ kind: 'park' });
  });
});
