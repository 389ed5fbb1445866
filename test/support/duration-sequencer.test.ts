/** The run's order: failed files first, then unknown ones, then the longest first. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FileRank, longestFirst } from './duration-sequencer.js';

describe('longestFirst', () => {
  it('puts failed files first, unknown ones next, then by duration, ties in their given order', () => {
    const ranks: Record<string, FileRank> = {
      short: { failed: false, durationMs: 100 },
      long: { failed: false, durationMs: 60_000 },
      unknown: { failed: false, durationMs: undefined },
      failedShort: { failed: true, durationMs: 5 },
      tieA: { failed: false, durationMs: 500 },
      tieB: { failed: false, durationMs: 500 },
    };
    const order = longestFirst(Object.keys(ranks), (name) => ranks[name] as FileRank);
    expect(order).toEqual(['failedShort', 'unknown', 'long', 'tieA', 'tieB', 'short']);
  });

  it('has kept durations for the files of the suite, in seconds', () => {
    const kept = JSON.parse(
      readFileSync(join(import.meta.dirname, 'file-durations.json'), 'utf8'),
    ) as Record<string, number>;
    expect(Object.keys(kept).length).toBeGreaterThan(200);
    expect(Object.values(kept).every((s) => Number.isFinite(s) && s >= 0)).toBe(true);
  });
});
