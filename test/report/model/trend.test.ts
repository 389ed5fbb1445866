import { utcDay, utcHour, utcMonth } from 'd3-time';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countAxis, timeTickLabel, timeTicks } from '../../../src/report/charts/chart-scales.js';
import type { RequestTimes } from '../../../src/report/model/request-times.js';
import { buildTrend } from '../../../src/report/model/trend.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2025, 9, 6); // a Monday
const sent = (at: number, outcome?: 'completed' | 'declined', after = DAY): RequestTimes => ({
  sentAt: T0 + at,
  finishedAt: outcome === undefined ? undefined : T0 + at + after,
  outcome,
});

describe('buildTrend', () => {
  it('counts sent, completed and completed-of-sent per day, empty days included', () => {
    const trend = buildTrend([
      sent(0, 'completed'),
      sent(0, 'declined'),
      sent(0),
      sent(2 * DAY, 'completed', 3 * DAY),
    ]);
    expect(trend?.unit).toBe('day');
    expect(trend?.rows.map((r) => [r.period, r.sent, r.completed, r.completedOfSent])).toEqual([
      ['2025-10-06', 3, 0, 1],
      ['2025-10-07', 0, 1, 0],
      ['2025-10-08', 1, 0, 1],
      ['2025-10-09', 0, 0, 0],
      ['2025-10-10', 0, 0, 0],
      ['2025-10-11', 0, 1, 0],
    ]);
  });

  it('picks hours, weeks, months as the span grows, and lists only the years that have requests', () => {
    expect(buildTrend([sent(0), sent(5 * 3_600_000)])?.unit).toBe('hour');
    const weeks = buildTrend([sent(0), sent(200 * DAY)]);
    expect(weeks?.unit).toBe('week');
    expect(weeks?.rows[0]?.period).toBe('2025-10-06');
    expect(buildTrend([sent(0), sent(3 * 365 * DAY)])?.unit).toBe('month');
    const years = buildTrend([
      { sentAt: Date.UTC(1, 0, 1), finishedAt: undefined, outcome: undefined },
      sent(0),
    ]);
    expect(years?.unit).toBe('year');
    expect(years?.rows).toHaveLength(2);
    expect(
      buildTrend([{ sentAt: undefined, finishedAt: undefined, outcome: undefined }]),
    ).toBeUndefined();
  });

  it('adds up: every request sent once, every completion once, whatever the times', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            at: fc.integer({ min: 0, max: 400 * DAY }),
            outcome: fc.constantFrom(undefined, 'completed' as const, 'declined' as const),
            after: fc.integer({ min: 0, max: 30 * DAY }),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        (requests) => {
          const trend = buildTrend(requests.map((r) => sent(r.at, r.outcome, r.after)));
          const sum = (
            pick: (row: { sent: number; completed: number; completedOfSent: number }) => number,
          ) => (trend?.rows ?? []).reduce((total, row) => total + pick(row), 0);
          const completed = requests.filter((r) => r.outcome === 'completed').length;
          expect(sum((r) => r.sent)).toBe(requests.length);
          expect(sum((r) => r.completed)).toBe(completed);
          expect(sum((r) => r.completedOfSent)).toBe(completed);
        },
      ),
    );
  });
});

describe('chart scales', () => {
  it('gives round count ticks from 0 past the largest value', () => {
    expect(countAxis(74_966).ticks.map((t) => t.label)).toEqual([
      '0',
      '20,000',
      '40,000',
      '60,000',
      '80,000',
    ]);
    expect(countAxis(74_966).top).toBe(80_000);
    // No halves of a request.
    expect(countAxis(1).ticks.map((t) => t.value)).toEqual([0, 1]);
    expect(countAxis(0).ticks.map((t) => t.value)).toEqual([0, 1]);
  });

  it('labels time ticks by what changed, in UTC', () => {
    expect(timeTickLabel(new Date(Date.UTC(2025, 0, 1)))).toBe('2025');
    expect(timeTickLabel(new Date(Date.UTC(2025, 2, 1)))).toBe('Mar');
    expect(timeTickLabel(new Date(Date.UTC(2025, 2, 3)))).toBe('Mar 3');
    expect(timeTickLabel(new Date(Date.UTC(2025, 2, 3, 6)))).toBe('06:00');
  });

  it('puts no tick finer than the period, and at most about the count asked', () => {
    const days = timeTicks(T0, T0 + 2 * DAY, 8, utcDay);
    expect(days.length).toBeGreaterThanOrEqual(2);
    for (const tick of days) expect(tick.label).not.toMatch(/:/);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 * 365 }),
        fc.integer({ min: 1, max: 20 * 365 }),
        fc.constantFrom(3, 8),
        fc.constantFrom(utcHour, utcDay, utcMonth),
        (startDay, spanDays, count, finest) => {
          const start = Date.UTC(1990, 0, 1) + startDay * DAY;
          const ticks = timeTicks(start, start + spanDays * DAY, count, finest);
          expect(ticks.length).toBeLessThanOrEqual(count * 2 + 1);
          for (const tick of ticks) {
            expect(tick.at).toBeGreaterThanOrEqual(0);
            expect(tick.at).toBeLessThanOrEqual(1);
          }
          // In order, and two neighbours never read the same (a new year shows between two `Apr`s).
          ticks.slice(1).forEach((tick, i) => {
            expect(tick.at).toBeGreaterThan(ticks[i]?.at ?? 0);
            expect(tick.label).not.toBe(ticks[i]?.label);
          });
        },
      ),
    );
  });
});
