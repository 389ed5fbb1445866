import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { counted, plural } from '../../src/core/plural.js';

describe('plural', () => {
  it('takes the singular for exactly one, the plural for every other count', () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 1000 }), (n) => {
        expect(counted(n, 'problem')).toBe(n === 1 ? '1 problem' : `${n} problems`);
        expect(plural(n, 'differs', 'differ')).toBe(n === 1 ? 'differs' : 'differ');
      }),
    );
    expect(counted(1, 'bad line or invalid event', 'bad lines or invalid events')).toBe(
      '1 bad line or invalid event',
    );
    expect(counted(0, 'no-op')).toBe('0 no-ops');
  });
});
