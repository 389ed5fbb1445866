import { describe, expect, it } from 'vitest';
import { observationRecord } from '../../../src/core/observations/observation-record.js';
import { decodeSignRequest } from '../../../src/index.js';
import { renderReport } from '../../../src/report/render-report.js';
import { events } from '../../../src/testing/index.js';
import { DAY, type Delivery, HOUR, modelOf, T0 } from '../report-fixtures.js';

/** A request of template `templateId` sent at `at` with one participant, who views it. */
const opened = (signRequestId: number, at: number, templateId = 100): Delivery[] => [
  { event: events.signRequestSent({ signRequestId, templateId }), at },
  { event: events.participantSent({ signRequestId, templateId, participantId: 5 }), at: at + 1000 },
  { event: events.participantViewed({ signRequestId, participantId: 5 }), at: at + 2000 },
];

const signedAfter = (signRequestId: number, at: number, ms: number): Delivery[] => [
  ...opened(signRequestId, at),
  { event: events.participantSigned({ signRequestId, participantId: 5 }), at: at + ms - 1000 },
  { event: events.signRequestCompleted({ signRequestId }), at: at + ms },
];

const declinedAfter = (signRequestId: number, at: number, ms: number): Delivery[] => [
  ...opened(signRequestId, at),
  { event: events.participantDeclined({ signRequestId, participantId: 5 }), at: at + ms - 1000 },
  { event: events.signRequestDeclined({ signRequestId }), at: at + ms },
];

describe('buildReportModel: stuck requests', () => {
  // Request 1 is sent at 0 and never finished; the latest receivedAt is 8 days later.
  const log: Delivery[] = [
    { event: events.templateActivated({ templateId: 100 }), at: 0 },
    ...opened(1, 0),
    ...signedAfter(2, 8 * DAY - HOUR, HOUR),
  ];

  it('lists a request sent longer ago than the threshold, with who is still to act', async () => {
    const model = await modelOf(log, { stuckAfterMs: 7 * DAY, log: 'my log.ndjson' });
    expect(model.stuck.total).toBe(1);
    expect(model.stuck.asOf).toBe('2025-01-14T09:00:00.000Z');
    const [stuck] = model.stuck.listed;
    expect(stuck?.id).toBe(1);
    expect(stuck?.ageMs).toBe(8 * DAY);
    // Awaited since its participant-viewed (2 s after the request was sent).
    expect(stuck?.awaiting).toEqual([
      { id: 5, name: 'Ada Lovelace', status: 'viewed', since: '2025-01-06T09:00:02.000Z' },
    ]);
    // The log name is quoted for the shell.
    expect(stuck?.inspectCommand).toBe("signfold inspect 'my log.ndjson' --sign-request 1");
  });

  it('is measured against the latest receivedAt: not stuck below the threshold', async () => {
    const model = await modelOf(log, { stuckAfterMs: 9 * DAY });
    expect(model.stuck.total).toBe(0);
    expect(model.stuck.listed).toEqual([]);
  });

  it('is exactly the threshold: not stuck (strictly longer is)', async () => {
    expect((await modelOf(log, { stuckAfterMs: 8 * DAY })).stuck.total).toBe(0);
    expect((await modelOf(log, { stuckAfterMs: 8 * DAY - 1 })).stuck.total).toBe(1);
  });

  it('cannot tell without receivedAt', async () => {
    const model = await modelOf(log, { stuckAfterMs: 1000, bare: true });
    expect(model.stuck.asOf).toBeUndefined();
    expect(model.stuck.total).toBe(0);
    expect(model.timings).toBeUndefined();
    expect(model.activity).toBeUndefined();
  });
});

describe('buildReportModel: timings and funnel', () => {
  it('gives median and p90 per template from sent to the final event', async () => {
    const log: Delivery[] = [];
    // Ten completed requests taking 1..10 hours, two declined taking 30 minutes and 3 days.
    for (let i = 1; i <= 10; i += 1) log.push(...signedAfter(i, i * DAY, i * HOUR));
    log.push(...declinedAfter(11, 0, HOUR / 2), ...declinedAfter(12, 0, 3 * DAY));
    const model = await modelOf(log);
    expect(model.timings?.measured).toBe(12);
    const [row] = model.timings?.perTemplate ?? [];
    expect(row?.completed).toEqual({ count: 10, medianMs: 5 * HOUR, p90Ms: 9 * HOUR });
    expect(row?.declined).toEqual({ count: 2, medianMs: HOUR / 2, p90Ms: 3 * DAY });
    const bins = Object.fromEntries(
      (model.timings?.distribution ?? []).map((b) => [b.label, [b.completed, b.declined]]),
    );
    expect(bins['15–60 min']).toEqual([0, 1]);
    expect(bins['1–4 h']).toEqual([3, 0]);
    expect(bins['4–24 h']).toEqual([7, 0]);
    expect(bins['3–7 d']).toEqual([0, 1]);
    // The funnel: every participant viewed; 10 signed, 2 declined.
    const [template] = model.templates;
    expect(template?.participants).toEqual({
      sent: 12,
      viewed: 12,
      signed: 10,
      declined: 2,
      waiting: 0,
    });
    expect(template?.requests).toBe(12);
    expect(template?.completionRate).toBeCloseTo(10 / 12);
    expect(template?.declineRate).toBeCloseTo(2 / 12);
  });

  it('counts a participant who signed without a viewed event as having viewed', async () => {
    const model = await modelOf([
      { event: events.signRequestSent({ signRequestId: 1 }), at: 0 },
      { event: events.participantSent({ signRequestId: 1, participantId: 5 }), at: 1 },
      { event: events.participantSent({ signRequestId: 1, participantId: 6 }), at: 2 },
      { event: events.participantSigned({ signRequestId: 1, participantId: 5 }), at: 3 },
    ]);
    expect(model.templates[0]?.participants).toEqual({
      sent: 2,
      viewed: 1,
      signed: 1,
      declined: 0,
      waiting: 1,
    });
  });

  it('takes the times from applied events only: a redelivered or conflicting final event changes nothing', async () => {
    const model = await modelOf([
      ...signedAfter(1, 0, HOUR),
      { event: events.signRequestCompleted({ signRequestId: 1 }), at: 5 * HOUR },
      { event: events.signRequestDeclined({ signRequestId: 1 }), at: 6 * HOUR },
    ]);
    expect(model.timings?.all.completed).toEqual({ count: 1, medianMs: HOUR, p90Ms: HOUR });
    expect(model.overview.conflicts).toBe(1);
    expect(model.activity?.rows.reduce((sum, r) => sum + r.conflicts, 0)).toBe(1);
  });
});

describe('buildReportModel: repaired requests', () => {
  it('times a request repaired to completed from its view: sent to the observation that saw it completed', async () => {
    const fetched = new Date(T0 + 5 * HOUR);
    const completed = decodeSignRequest({
      id: 1,
      name: 'NDA for Ada',
      status: 'completed',
      formType: 'Form',
      savedTime: '2025-01-06 09:00:00',
      participants: [{ id: 5, name: 'Ada Lovelace', status: 'Signed' }],
    })._unsafeUnwrap();
    const model = await modelOf([
      ...opened(1, 0),
      // The signature and the completion were lost; reconcile saw the request completed.
      { event: observationRecord(completed, { fetchedAt: fetched }), at: 6 * HOUR },
    ]);
    expect(model.timings?.all.completed).toEqual({
      count: 1,
      medianMs: 5 * HOUR,
      p90Ms: 5 * HOUR,
    });
  });
});

describe('buildReportModel: activity and companies', () => {
  it('counts events per period by type, hourly for a short log, daily for a longer one', async () => {
    const short = await modelOf([...signedAfter(1, 0, HOUR)]);
    expect(short.activity?.unit).toBe('hour');
    expect(short.activity?.rows.map((r) => r.period)).toEqual(['2025-01-06 09h', '2025-01-06 10h']);
    const long = await modelOf([...signedAfter(1, 0, HOUR), ...signedAfter(2, 5 * DAY, HOUR)]);
    expect(long.activity?.unit).toBe('day');
    // Every day from the first to the last, the empty ones too.
    expect(long.activity?.rows.map((r) => r.total)).toEqual([5, 0, 0, 0, 0, 5]);
    expect(long.activity?.types).toEqual([
      'sign-request-sent',
      'sign-request-completed',
      'participant-sent',
      'participant-viewed',
      'participant-signed',
    ]);
  });

  it('has one row per company, in id order, each counted apart', async () => {
    const model = await modelOf([
      { event: events.signRequestSent({ signRequestId: 1, companyId: 7 }), at: 0 },
      { event: events.signRequestSent({ signRequestId: 2, companyId: 3 }), at: 1 },
      { event: events.signRequestCompleted({ signRequestId: 2, companyId: 3 }), at: 2 },
      // Another company's event about request 2: a conflict, counted in no company.
      { event: events.signRequestDeclined({ signRequestId: 2, companyId: 7 }), at: 3 },
    ]);
    expect(model.companies.map((c) => c.companyId)).toEqual([3, 7]);
    expect(model.companies[0]?.counts.signRequests).toMatchObject({ total: 1, completed: 1 });
    expect(model.companies[0]?.completionRate).toBe(1);
    expect(model.companies[1]?.counts.signRequests).toMatchObject({ total: 1, sent: 1 });
    expect(model.overview.counts.signRequests.total).toBe(2);
    expect(model.quarantine.total).toBe(1);
    expect(model.overview.problemsByKind).toEqual([
      { category: 'conflict', kind: 'company-mismatch', count: 1 },
    ]);
  });
});

describe('buildReportModel: long lists', () => {
  it('lists the first 1,000 stuck requests and quarantined records, and says how many in all', async () => {
    const many = 1005;
    const log: Delivery[] = [];
    for (let id = 1; id <= many; id += 1) {
      log.push({ event: events.signRequestSent({ signRequestId: id, templateId: 100 }), at: id });
      log.push({ event: { type: 'sign-request-expired', signRequestId: id }, at: id });
    }
    log.push({ event: events.templateActivated({ templateId: 100 }), at: 10 * DAY });
    const model = await modelOf(log, { stuckAfterMs: 7 * DAY });
    expect(model.stuck.total).toBe(many);
    expect(model.stuck.listed.map((r) => r.id)).toEqual(
      Array.from({ length: 1000 }, (_, i) => i + 1),
    );
    expect(model.quarantine.total).toBe(many);
    expect(model.quarantine.listed.map((q) => q.position)).toEqual(
      Array.from({ length: 1000 }, (_, i) => 2 * (i + 1)),
    );
    const html = renderReport(model);
    expect(
      html.split('1,000 of 1,005 listed; 5 more not listed here nor in the CSV.'),
    ).toHaveLength(3);
    expect(html).toContain('data-metric="stuck.total" data-value="1005"');
    expect(html).toContain('data-metric="quarantine.total" data-value="1005"');
  });
});
