import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/render-report.js';
import { events } from '../../src/testing/index.js';
import { DAY, type Delivery, HOUR, modelOf } from './report-fixtures.js';

const HOSTILE = '<script>alert("x")</script>&<img src=x onerror=alert(1)>';

const deliveries = (companyIds: readonly number[]): Delivery[] =>
  companyIds.flatMap((companyId, index) => {
    const signRequestId = 100 + index;
    const common = { companyId, signRequestId, templateId: 10 + index };
    return [
      {
        event: events.templateActivated({
          companyId,
          templateId: 10 + index,
          templateName: HOSTILE,
        }),
        at: 0,
      },
      { event: events.signRequestSent({ ...common, signRequestName: HOSTILE }), at: HOUR },
      {
        event: events.participantSent({ ...common, participantId: 5, participantName: HOSTILE }),
        at: 2 * HOUR,
      },
      { event: events.signRequestCompleted({ ...common }), at: 3 * HOUR + index },
      // A request left open for 10 days: stuck.
      { event: events.signRequestSent({ ...common, signRequestId: 900 + index }), at: HOUR },
      { event: events.participantViewed({ ...common, signRequestId: 900 + index }), at: 10 * DAY },
    ];
  });

describe('renderReport', () => {
  it('gives the same bytes for the same log, built and rendered twice', async () => {
    const first = renderReport(await modelOf(deliveries([1, 2])));
    const second = renderReport(await modelOf(deliveries([1, 2])));
    expect(second).toBe(first);
  });

  it('escapes every string from the log', async () => {
    const html = renderReport(await modelOf(deliveries([1]), { log: '<b>log</b>' }));
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<b>log</b>');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&lt;img src=x');
    // The page's own script is the only one, and the policy allows no other.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
  });

  it('refers to nothing outside the file', async () => {
    const html = renderReport(await modelOf(deliveries([1, 2])));
    // Links go to the page's own sections, or are CSV downloads carried in the page itself.
    expect(html).not.toMatch(/\b(src|href)="(?!#|data:text\/csv;charset=utf-8;base64,)/);
    expect(html).toContain('href="data:text/csv;charset=utf-8;base64,');
    expect(html).not.toMatch(/url\(|@import|https?:\/\//);
    expect(html).toContain("default-src 'none'");
  });

  it('lists stuck requests with their inspect command line', async () => {
    const html = renderReport(await modelOf(deliveries([1]), { stuckAfterMs: 7 * DAY }));
    expect(html).toContain('data-metric="stuck.total" data-value="1"');
    expect(html).toContain('signfold inspect events.ndjson --sign-request 900');
    const notStuck = renderReport(await modelOf(deliveries([1]), { stuckAfterMs: 11 * DAY }));
    expect(notStuck).toContain('data-metric="stuck.total" data-value="0"');
    expect(notStuck).not.toContain('--sign-request 900');
  });

  it('has a companies section and filter only when the log has several companies', async () => {
    const one = renderReport(await modelOf(deliveries([1])));
    expect(one).not.toContain('id="companies"');
    expect(one).not.toContain('id="company-filter"');
    const two = renderReport(await modelOf(deliveries([4, 2])));
    expect(two).toContain('id="companies"');
    expect(two).toContain(
      '<option value="2">company 2</option><option value="4">company 4</option>',
    );
    expect(two.match(/<tr data-company="4">/g)?.length).toBeGreaterThan(1);
  });

  it('draws every chart with bars, and a table beside each', async () => {
    const html = renderReport(await modelOf(deliveries([1, 2])));
    for (const id of ['chart-funnel', 'chart-durations', 'chart-volume', 'chart-completion']) {
      expect(html).toContain(`<svg class="chart" id="${id}"`);
    }
    // No conflicts in this log: one line, not an empty plot.
    expect(html).toContain('<p class="note empty-chart" id="chart-conflicts">');
    expect(html).not.toContain('<svg class="chart" id="chart-conflicts"');
    for (const id of [
      'templates-table',
      'durations-table',
      'timings-table',
      'trend-table',
      'activity-table',
    ]) {
      expect(html).toContain(`<table id="${id}"`);
    }
  });
});
