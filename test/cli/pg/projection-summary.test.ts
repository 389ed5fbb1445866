import { describe, expect, it } from 'vitest';
import { projectionSummary } from '../../../src/cli/pg/projection-summary.js';

describe('projectionSummary', () => {
  it('counts in the singular for one and the plural otherwise', () => {
    const one = { checkpoint: 4, applied: 1, noOps: 1, conflicts: 1, invalid: 1 };
    expect(projectionSummary(one)).toBe(
      'projected up to position 4: 1 applied, 1 no-op, 1 conflict, 1 invalid',
    );
    expect(projectionSummary({ ...one, noOps: 0, conflicts: 2 })).toBe(
      'projected up to position 4: 1 applied, 0 no-ops, 2 conflicts, 1 invalid',
    );
  });
});
