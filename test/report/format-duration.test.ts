/**
 * Durations on the page (issue 46: "median time to complete 0 s" for
 * requests completed within a second): under a second they are milliseconds,
 * and each unit holds only while its rounded number is below the next unit.
 */
import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/report/html-text.js';
import { renderReport } from '../../src/report/render-report.js';
import { events } from '../../src/testing/index.js';
import { DAY, HOUR, modelOf } from './report-fixtures.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

describe('formatDuration', () => {
  it.each([
    [undefined, '–'],
    [0, '0 ms'],
    [1, '1 ms'],
    [420, '420 ms'],
    [999, '999 ms'],
    [999.4, '999 ms'],
    // Rounds up to a whole second: not "1000 ms".
    [999.6, '1 s'],
    [SECOND, '1 s'],
    [1499, '1 s'],
    [42 * SECOND, '42 s'],
    [59 * SECOND + 499, '59 s'],
    // Rounds up to a minute: not "60 s".
    [59 * SECOND + 500, '1 min'],
    [MINUTE, '1 min'],
    [17 * MINUTE, '17 min'],
    [59 * MINUTE + 29 * SECOND, '59 min'],
    [59 * MINUTE + 30 * SECOND, '1.0 h'],
    [HOUR, '1.0 h'],
    [5.3 * HOUR, '5.3 h'],
    [47.9 * HOUR, '47.9 h'],
    // Rounds up to 48 hours: two days.
    [47.96 * HOUR, '2.0 d'],
    [2 * DAY, '2.0 d'],
    [2.1 * DAY, '2.1 d'],
    [400 * DAY, '400.0 d'],
  ])('%s ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('never says 0 s, whatever the duration', () => {
    for (let ms = 0; ms < 3 * SECOND; ms += 7) expect(formatDuration(ms)).not.toMatch(/^0 s$/);
  });
});

describe('the page', () => {
  it('gives a median time to complete under a second in milliseconds', async () => {
    const request = { companyId: 1, signRequestId: 1, templateId: 10 };
    const html = renderReport(
      await modelOf([
        { event: events.templateActivated({ companyId: 1, templateId: 10 }), at: 0 },
        { event: events.signRequestSent(request), at: HOUR },
        { event: events.signRequestCompleted(request), at: HOUR + 420 },
      ]),
    );
    expect(html).toMatch(/data-figure="summary\.medianCompleteMs" data-value="420">420 ms</);
    expect(html).not.toMatch(/>0 s</);
  });
});
