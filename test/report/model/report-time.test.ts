/**
 * The report tells the truth about time (issue 34): "now" is when the report
 * is made (or `--now`), not the latest `receivedAt`; ages and stuck requests
 * follow it, a banner says when deliveries stopped, and the trend ends at
 * the period's end with no 0 % for a period that cannot be told yet.
 */
import { describe, expect, it } from 'vitest';
import { completionChart } from '../../../src/report/charts/trend-chart.js';
import { referenceTime } from '../../../src/report/model/build-report-model.js';
import type { RequestTimes } from '../../../src/report/model/request-times.js';
import { buildTrend, completionShare } from '../../../src/report/model/trend.js';
import { renderStaleBanner } from '../../../src/report/render/render-summary.js';
import { renderReport } from '../../../src/report/render-report.js';
import { events } from '../../../src/testing/index.js';
import { DAY, type Delivery, HOUR, modelOf, T0 } from '../report-fixtures.js';

// Request 1 sent at 0 and left open; the last delivery is a day later.
const log: Delivery[] = [
  { event: events.signRequestSent({ signRequestId: 1 }), at: 0 },
  { event: events.participantSent({ signRequestId: 1, participantId: 5 }), at: DAY },
];

describe('"now"', () => {
  it('is the time given, not the latest receivedAt: ages and stuck requests follow it', () => {
    const fresh = modelOf(log, { now: DAY });
    expect(fresh.stuck.total).toBe(0);
    // Ten days on, nothing more arrived: the request has been open ten days, and is stuck.
    const later = modelOf(log, { now: 10 * DAY });
    expect(later.summary.asOf).toBe(new Date(T0 + 10 * DAY).toISOString());
    expect(later.summary.lastDelivery).toBe(new Date(T0 + DAY).toISOString());
    expect(later.stuck.total).toBe(1);
    expect(later.stuck.listed[0]?.ageMs).toBe(10 * DAY);
    expect(later.summary.scopes[0]?.figures.oldestOpenMs).toBe(10 * DAY);
    // Open for 10 days: the 7–30 d bucket.
    expect(later.summary.scopes[0]?.openByAge).toEqual([0, 0, 0, 1, 0]);
  });

  it('is the end of the period when --to is earlier, and never before a delivery read', () => {
    expect(referenceTime(10 * DAY, { toMs: 4 * DAY }, 3 * DAY)).toEqual({
      ms: 4 * DAY,
      basis: 'period-end',
    });
    expect(referenceTime(10 * DAY, { toMs: 40 * DAY }, 3 * DAY)).toEqual({
      ms: 10 * DAY,
      basis: 'now',
    });
    // A clock behind the sender's: "now" is the latest receivedAt, so no age is negative.
    expect(referenceTime(2 * DAY, {}, 3 * DAY)).toEqual({ ms: 3 * DAY, basis: 'latest' });
    expect(referenceTime(2 * DAY, {}, undefined)).toEqual({ ms: 2 * DAY, basis: 'now' });
  });
});

describe('the banner about the last delivery', () => {
  it('shows when the last delivery is older than the threshold, and only then', () => {
    const recent = modelOf(log, { now: DAY + HOUR });
    expect(renderStaleBanner(recent.summary)).toBe('');
    const stopped = modelOf(log, { now: DAY + 12 * HOUR });
    const banner = renderStaleBanner(stopped.summary);
    expect(banner).toContain(
      'No delivery for 12.0 h: the last one arrived at <time>2025-01-07 09:00</time> UTC',
    );
    expect(renderReport(stopped)).toContain(banner);
    expect(
      renderStaleBanner(modelOf(log, { now: DAY + 12 * HOUR, staleAfterMs: 12 * HOUR }).summary),
    ).toBe('');
  });

  it('says nothing when no event has a receivedAt (there is no last delivery to tell)', () => {
    const bare = modelOf(log, { now: 100 * DAY, bare: true });
    expect(renderStaleBanner(bare.summary)).toBe('');
  });

  it('carries no markup nor control character from the log', () => {
    const hostile: Delivery[] = [
      {
        event: events.signRequestSent({
          signRequestId: 1,
          signRequestName: '<img src=x onerror=alert(1)>\u001b[2J\u202e',
          templateName: '<script>alert(1)</script>',
        }),
        at: 0,
      },
    ];
    const banner = renderStaleBanner(
      modelOf(hostile, { now: 30 * DAY, log: '<b>x</b>\u0007' }).summary,
    );
    expect(banner).not.toBe('');
    // Its only markup is the page's own: the paragraph, times, the note and its code.
    const tags = new Set([...banner.matchAll(/<\/?([a-z]+)/g)].map((m) => m[1]));
    expect(tags).toEqual(new Set(['p', 'time', 'span', 'code']));
    // No C0 or C1 control, DEL, nor bidi control (which the page shows as \uXXXX text instead).
    const controls = [...banner].filter((c) => {
      const code = c.codePointAt(0) ?? 0;
      return (
        code < 0x20 ||
        (code >= 0x7f && code <= 0x9f) ||
        (code >= 0x202a && code <= 0x202e) ||
        (code >= 0x2066 && code <= 0x2069)
      );
    });
    expect(controls).toEqual([]);
  });
});

describe('the trend and the end of the period', () => {
  const D0 = Date.UTC(2025, 9, 6);
  const sent = (at: number, outcome?: 'completed' | 'declined'): RequestTimes => ({
    sentAt: D0 + at,
    finishedAt: outcome === undefined ? undefined : D0 + at + HOUR,
    outcome,
  });

  it('ends at the period end, not a day past it, with the quiet days up to it', () => {
    // The last request at noon on day 3; "now" is day 5 at 06:00.
    const trend = buildTrend(
      [sent(0, 'completed'), sent(3 * DAY + 12 * HOUR)],
      D0 + 5 * DAY + 6 * HOUR,
    );
    expect(trend?.rows.map((r) => r.period)).toEqual([
      '2025-10-06',
      '2025-10-07',
      '2025-10-08',
      '2025-10-09',
      '2025-10-10',
      '2025-10-11',
    ]);
    expect(trend?.rows.at(-1)?.end).toBe(D0 + 5 * DAY + 6 * HOUR);
    // Without an end, it ends with its last request's period, as before.
    expect(buildTrend([sent(0), sent(5 * DAY)])?.rows.at(-1)?.end).toBe(D0 + 6 * DAY);
  });

  it('tells no completion of sent where nothing was sent or nothing sent has finished', () => {
    const trend = buildTrend([
      sent(0, 'completed'),
      sent(0),
      sent(2 * DAY),
      sent(5 * DAY, 'declined'),
    ]);
    const shares = trend?.rows.map((row) => completionShare(row));
    // Days 1, 3, 4: nothing sent; day 2: sent, still open (not yet 0 %); day 5: declined (0 %).
    expect(shares).toEqual([0.5, undefined, undefined, undefined, undefined, 0]);
    // The line is drawn for day 0 and day 5 only: two separate moves, nothing in between.
    const chart = completionChart(trend ?? { unit: 'day', rows: [] }, 'c', 'now');
    const path = /class="line[^"]*"[^>]*d="([^"]*)"/.exec(chart)?.[1] ?? '';
    expect(path.match(/M/g)).toHaveLength(2);
  });
});
