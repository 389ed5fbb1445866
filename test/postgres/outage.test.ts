/** The backoff between tries and the once-per-outage reports (src/postgres/outage.ts). */
import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_BACKOFF, Outage, pause } from '../../src/postgres/outage.js';
import type { PostgresError } from '../../src/postgres/postgres-error.js';

const lost: PostgresError = { kind: 'database', code: '57P01', message: 'x', retryable: true };

describe('backoffDelay', () => {
  it('doubles from the first wait up to the largest, drawn between half and all of it', () => {
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const ceiling = Math.min(DEFAULT_BACKOFF.maxMs, DEFAULT_BACKOFF.firstMs * 2 ** attempt);
      expect(backoffDelay(attempt, DEFAULT_BACKOFF, () => 0)).toBe(ceiling / 2);
      expect(backoffDelay(attempt, DEFAULT_BACKOFF, () => 1)).toBe(ceiling);
      const drawn = backoffDelay(attempt);
      expect(drawn).toBeGreaterThanOrEqual(ceiling / 2);
      expect(drawn).toBeLessThanOrEqual(ceiling);
    }
  });
});

describe('Outage', () => {
  it('reports each outage once as it begins and once as it ends, however many tries', () => {
    const seen: string[] = [];
    const outage = new Outage({
      down: (error) => seen.push(`down ${error.kind === 'database' ? error.code : ''}`),
      up: (_, tries) => seen.push(`up after ${tries}`),
    });
    outage.succeeded();
    expect(seen).toEqual([]);
    for (let i = 0; i < 5; i += 1) outage.failed(lost);
    expect(outage.down).toBe(true);
    outage.succeeded();
    outage.succeeded();
    outage.failed(lost);
    outage.succeeded();
    expect(seen).toEqual(['down 57P01', 'up after 5', 'down 57P01', 'up after 1']);
    expect(outage.down).toBe(false);
  });

  it('a stop cuts a backoff short', async () => {
    const stop = new AbortController();
    const started = performance.now();
    const waited = pause(60_000, stop.signal);
    stop.abort();
    await waited;
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
