/**
 * The page's figures equal an independent computation from the log (issue
 * 20): completion of sent, open and stuck per template, stuck ages, per
 * sender and per owner counts, quarantine groups, --from/--to and the
 * company filter's per-company figures, on a crafted log (stuck requests,
 * missed completions, hostile names) and on the example log.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../src/testing/index.js';
import { ROOT, removeTempDirs, runCliHere, tempDir } from '../cli/cli-helpers.js';
import { craftedLogLines, DAY, START } from './crafted-log.js';
import {
  counted,
  figures,
  type Independent,
  independent,
  type Req,
} from './independent-figures.js';
import { footerRow, metric, tableRows } from './page-figures.js';

let dir = '';
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(removeTempDirs);

/**
 * The page of `lines` with `flags`, made as if at the latest `receivedAt` of
 * the lines (`--now`), so the independent figures can measure ages against
 * that same time.
 */
const pageOf = async (lines: readonly string[], flags: readonly string[] = []) => {
  const log = join(dir, `log-${Math.random().toString(36).slice(2)}.ndjson`);
  await writeFile(log, `${lines.join('\n')}\n`);
  const out = `${log}.html`;
  const latest = independent(lines).latest;
  const now = latest === undefined ? [] : ['--now', new Date(latest).toISOString()];
  const run = await runCliHere(['report', log, '--out', out, ...now, ...flags]);
  expect(run.code, run.stderr).toBe(0);
  return await readFile(out, 'utf8');
};

const groupBy = <K>(rs: readonly Req[], key: (r: Req) => K): Map<K, Req[]> => {
  const map = new Map<K, Req[]>();
  for (const r of rs) map.set(key(r), [...(map.get(key(r)) ?? []), r]);
  return map;
};

/** Per template id: sent, completed, declined, open, stuck, completed of sent, as the page lists them. */
const pageTemplates = (html: string) =>
  new Map(
    tableRows(html, 'templates-table').map((cells) => [
      Number(cells[1]),
      {
        sent: Number(cells[4]),
        completed: Number(cells[5]),
        declined: Number(cells[6]),
        open: Number(cells[7]),
        stuck: Number(cells[8]),
        completedOfSent: Number(cells[9]),
      },
    ]),
  );

const expectTemplates = (html: string, ind: Independent, stuckAfterMs: number): void => {
  const rs = counted(ind).filter((r) => r.sentAt !== undefined);
  const page = pageTemplates(html);
  const expected = groupBy(rs, (r) => r.templateId ?? -1);
  for (const [templateId, list] of expected) {
    if (templateId === -1) continue;
    const f = figures(list, ind.latest ?? 0, stuckAfterMs);
    const row = page.get(templateId);
    expect(row, `template ${templateId}`).toBeDefined();
    expect(row?.sent).toBe(f.sent);
    expect(row?.completed).toBe(f.completed);
    expect(row?.declined).toBe(f.declined);
    expect(row?.open).toBe(f.open);
    expect(row?.stuck).toBe(f.stuck);
    expect(row?.completedOfSent).toBeCloseTo(f.completedOfSent, 12);
  }
};

describe('report figures on a crafted log', () => {
  const lines = craftedLogLines();
  const ind = independent(lines);
  const latest = ind.latest ?? 0;
  let html = '';
  beforeAll(async () => {
    html = await pageOf(lines);
  });

  it('lists per template the completion of sent, open and stuck requests', () => {
    expectTemplates(html, ind, 7 * DAY);
    // Open requests count against a template: some have far more open than others.
    const rows = [...pageTemplates(html).values()];
    expect(
      rows.some((r) => r.open > 0 && r.completedOfSent < r.completed / (r.completed + r.declined)),
    ).toBe(true);
  });

  it('sums the same figures in the summary strip, for all and for each company', () => {
    const rs = counted(ind);
    const all = figures(rs, latest, 7 * DAY);
    expect(metric(html, 'summary.sent')).toBe(all.sent);
    expect(metric(html, 'summary.open')).toBe(all.open);
    expect(metric(html, 'summary.stuck')).toBe(all.stuck);
    expect(metric(html, 'summary.completedOfSent')).toBeCloseTo(all.completedOfSent, 12);
    expect(metric(html, 'funnel.requests')).toBe(all.sent);
    for (const [companyId, list] of groupBy(rs, (r) => r.companyId)) {
      const f = figures(list, latest, 7 * DAY);
      expect(metric(html, `company.${companyId}.summary.sent`)).toBe(f.sent);
      expect(metric(html, `company.${companyId}.summary.stuck`)).toBe(f.stuck);
      expect(metric(html, `company.${companyId}.stuck.total`)).toBe(f.stuck);
      // The templates' totals of the company: what the filter shows in place of all.
      expect(metric(html, `company.${companyId}.funnel.requests`)).toBe(f.sent);
      expect(metric(html, `company.${companyId}.funnel.open`)).toBe(f.open);
      expect(metric(html, `company.${companyId}.funnel.completed`)).toBe(f.completed);
      const oldest = Math.max(
        ...list.filter((r) => r.status === 'sent').map((r) => latest - (r.sentAt ?? 0)),
      );
      expect(metric(html, `company.${companyId}.summary.oldestOpenMs`)).toBe(oldest);
    }
    expect(metric(html, 'company.1.summary.sent')).not.toBe(metric(html, 'summary.sent'));
    // Each company's charts are drawn from its own templates, shown by the filter only.
    for (const companyId of [1, 2]) {
      for (const chart of ['chart-templates', 'chart-funnel']) {
        expect(html).toMatch(
          new RegExp(
            `<div data-scope="${companyId}" hidden><figure[\\s\\S]*?id="${chart}-${companyId}"`,
          ),
        );
      }
    }
  });

  it('gives each company its own timing totals: count, median and p90 of completed requests', () => {
    const nearestRank = (sorted: number[], q: number) =>
      sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1];
    for (const scope of ['all', '1', '2']) {
      const durations = counted(ind)
        .filter(
          (r) => r.status === 'completed' && (scope === 'all' || String(r.companyId) === scope),
        )
        .map((r) => (r.finalAt ?? 0) - (r.sentAt ?? 0))
        .sort((a, b) => a - b);
      const cells = footerRow(html, 'timings-table', scope);
      expect(cells.slice(3, 6).map(Number), scope).toEqual([
        durations.length,
        nearestRank(durations, 0.5),
        nearestRank(durations, 0.9),
      ]);
    }
    expect(html).toMatch(/<div data-scope="2" hidden><figure[\s\S]*?id="chart-durations-2"/);
  });

  it("gives each company its own trend, the companies' adding up to the whole log's", () => {
    const sentIn = (id: string) =>
      tableRows(html, id).reduce((sum, row) => sum + Number(row[1]), 0);
    const all = sentIn('trend-table');
    expect(all).toBe(counted(ind).length);
    expect(sentIn('trend-table-1') + sentIn('trend-table-2')).toBe(all);
    expect(sentIn('trend-table-2')).toBe(counted(ind).filter((r) => r.companyId === 2).length);
    expect(html).toMatch(/<div data-scope="2" hidden><figure[\s\S]*?id="chart-volume-2"/);
  });

  it('ages every open request, stuck or not, into buckets', () => {
    const open = counted(ind).filter((r) => r.status === 'sent');
    const bounds = [1, 3, 7, 30, Number.POSITIVE_INFINITY].map((d) => d * DAY);
    const buckets = bounds.map(() => 0);
    for (const r of open) {
      const i = bounds.findIndex((b) => latest - (r.sentAt ?? 0) < b);
      buckets[i] = (buckets[i] ?? 0) + 1;
    }
    expect(buckets.reduce((a, b) => a + b, 0)).toBe(open.length);
    expect(bounds.map((_, i) => metric(html, `openByAge.${i}`))).toEqual(buckets);
  });

  it('lists each stuck request with its age, sender, last activity, awaited participants and the missed completion flag', () => {
    const stuck = counted(ind).filter(
      (r) => r.status === 'sent' && latest - (r.sentAt ?? 0) > 7 * DAY,
    );
    const rows = new Map(tableRows(html, 'stuck-table').map((cells) => [Number(cells[0]), cells]));
    expect(rows.size).toBe(stuck.length);
    let flagged = 0;
    for (const r of stuck) {
      const cells = rows.get(r.id) ?? [];
      expect(Number(cells[6])).toBe(latest - (r.sentAt ?? 0));
      expect(cells[5]).toBe(new Date(r.sentAt ?? 0).toISOString());
      expect(cells[7]).toBe(new Date(r.lastActivity ?? 0).toISOString());
      const allSigned =
        r.participants.size > 0 && [...r.participants.values()].every((p) => p.status === 'signed');
      expect(cells[9]).toBe(allSigned ? '1' : '0');
      if (allSigned) flagged += 1;
      for (const p of r.participants.values()) {
        if (p.status === 'signed' || p.status === 'declined') continue;
        expect(cells[8]).toContain(
          `${p.status} since ${new Date(p.since ?? 0).toISOString().slice(0, 16).replace('T', ' ')}`,
        );
      }
    }
    expect(flagged).toBeGreaterThan(0);
  });

  it('names every open request fully signed without a completion, and the reconcile command for them', () => {
    const missed = counted(ind)
      .filter(
        (r) =>
          r.status === 'sent' &&
          r.participants.size > 0 &&
          [...r.participants.values()].every((p) => p.status === 'signed'),
      )
      .map((r) => r.id)
      .sort((a, b) => a - b);
    expect(missed.length).toBeGreaterThan(0);
    const block = /<div class="missed" id="missed-completions" data-scope="all">(.*?)<\/div>/s.exec(
      html,
    )?.[1];
    expect(block).toBeDefined();
    const listed = [...(block ?? '').matchAll(/<p class="ids">([^<]*)<\/p>/g)].flatMap(
      ([, text = '']) => [...text.matchAll(/\d+/g)].map(([n]) => Number(n)),
    );
    expect(listed).toEqual(missed);
    const command = /<p class="command"><code>([^<]*)<\/code><\/p>/.exec(block ?? '')?.[1];
    expect(command).toMatch(
      /^signfold reconcile \S+\.ndjson --fetch MODULE( --sign-request \d+)+$/,
    );
    expect(
      [...(command ?? '').matchAll(/--sign-request (\d+)/g)].map(([, n]) => Number(n)),
    ).toEqual(missed);
    // The summary's card names the first of them and links to the list.
    expect(html).toContain(
      `<a href="#missed-completions">${missed.length} fully signed without a completion</a> (${missed.slice(0, 3).join(', ')}`,
    );
    expect(html).not.toContain('compareSignRequest');
  });

  it('breaks the figures down per sender and per owner', () => {
    const rs = counted(ind);
    for (const [table, pick] of [
      ['senders-table', (r: Req) => r.senderId],
      ['owners-table', (r: Req) => r.ownerId],
    ] as const) {
      const page = new Map(
        tableRows(html, table).map((c) => [
          `${c[2]}:${c[1]}`,
          { sent: Number(c[3]), completed: Number(c[4]), open: Number(c[6]), stuck: Number(c[7]) },
        ]),
      );
      const expected = groupBy(rs, (r) => `${r.companyId}:${pick(r)}`);
      expect(page.size).toBe(expected.size);
      for (const [key, list] of expected) {
        const f = figures(list, latest, 7 * DAY);
        expect(page.get(key), `${table} ${key}`).toEqual({
          sent: f.sent,
          completed: f.completed,
          open: f.open,
          stuck: f.stuck,
        });
      }
    }
  });

  it('groups the quarantine by kind and message, with counts, first and last time and a delivery id', () => {
    const groups = tableRows(html, 'quarantine-groups-table');
    const byKind = new Map(groups.map((g) => [`${g[0]} ${g[1]}`, g]));
    const badLines = lines.filter((l) => l.endsWith('"broken')).length;
    expect(Number(byKind.get('bad line invalid JSON')?.[3])).toBe(badLines);
    // Numbers differ from one conflict to the next: one group, numbers shown as #.
    const conflicts = byKind.get('conflict invalid-transition');
    expect(conflicts?.[2]).toContain('#');
    const expired = lines.filter((l) => l.includes('sign-request-expired'));
    const unknown =
      byKind.get('invalid event unknown-type') ?? groups.find((g) => g[0] === 'invalid event');
    expect(Number(unknown?.[3])).toBe(expired.length);
    const times = expired.map((l) => JSON.parse(l).receivedAt as string).sort();
    expect(unknown?.[4]).toBe(times[0]);
    expect(unknown?.[5]).toBe(times.at(-1));
    expect(unknown?.[7]).toBe(JSON.parse(expired[0] ?? '{}').deliveryId);
    expect(metric(html, 'summary.ingestion')).toBe(badLines + expired.length);
  });
});

describe('report --from / --to', () => {
  const lines = craftedLogLines();
  const from = START + 20 * DAY;
  const to = START + 40 * DAY;
  // The log cut at --to (events from it on are not read), then the requests sent in the period.
  const before = lines.filter((l) => {
    try {
      return Date.parse(JSON.parse(l).receivedAt) < to;
    } catch {
      return true;
    }
  });
  const ind = independent(before);
  it('counts the requests sent in [from, to), with their statuses at the end of the period', async () => {
    const html = await pageOf(lines, [
      '--from',
      new Date(from).toISOString(),
      '--to',
      new Date(to).toISOString(),
    ]);
    const rs = counted(ind).filter((r) => (r.sentAt ?? 0) >= from && (r.sentAt ?? 0) < to);
    // "Now" (the latest receivedAt of the whole log) is after --to: ages are measured at --to.
    const f = figures(rs, to, 7 * DAY);
    expect(f.sent).toBeGreaterThan(0);
    expect(metric(html, 'summary.sent')).toBe(f.sent);
    expect(metric(html, 'summary.completed')).toBeUndefined();
    expect(metric(html, 'summary.open')).toBe(f.open);
    expect(metric(html, 'summary.stuck')).toBe(f.stuck);
    expect(metric(html, 'summary.completedOfSent')).toBeCloseTo(f.completedOfSent, 12);
    // Activity: the decoded events received in the period only (those before --from are folded, not counted).
    const inPeriod = before.filter((l) => {
      try {
        const v = JSON.parse(l);
        return Date.parse(v.receivedAt) >= from && v.event.type !== 'sign-request-expired';
      } catch {
        return false;
      }
    });
    const activity = tableRows(html, 'activity-table');
    const totalColumn = (activity[0]?.length ?? 0) - 2;
    expect(activity.reduce((sum, row) => sum + Number(row[totalColumn]), 0)).toBe(inPeriod.length);
    expect(html).toContain(
      `“now” is the end of the period, <time data-figure="summary.asOf">${new Date(to).toISOString().slice(0, 16).replace('T', ' ')}`,
    );
  });

  it('counts bare lines (no receivedAt) only without a period, and always lists bad lines', async () => {
    const bare = lines.map((l) => {
      try {
        return JSON.stringify(JSON.parse(l).event);
      } catch {
        return l;
      }
    });
    const badLines = bare.filter((l) => l.endsWith('"broken')).length;
    const whole = await pageOf(bare);
    expect(metric(whole, 'summary.sent')).toBe(counted(independent(bare)).length);
    const period = await pageOf(bare, ['--from', new Date(from).toISOString()]);
    expect(metric(period, 'summary.sent')).toBe(0);
    // Invalid events of bare lines carry no time either: kept, like bad lines.
    const expired = bare.filter((l) => l.includes('sign-request-expired')).length;
    expect(metric(period, 'summary.ingestion')).toBe(badLines + expired);
  });

  it('refuses a malformed time or an empty period with one line, exit 2', async () => {
    for (const flags of [
      ['--from', '2025-02-30'],
      ['--to', 'yesterday'],
      ['--from', '2025-06-01', '--to', '2025-05-01'],
    ]) {
      const run = await runCliHere([
        'report',
        join(ROOT, 'examples/events.ndjson'),
        '--out',
        join(dir, 'x.html'),
        ...flags,
      ]);
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('report figures on the example log', () => {
  it('lists per template the completion of sent, open and stuck requests', async () => {
    const lines = (await readFile(join(ROOT, 'examples/events.ndjson'), 'utf8'))
      .split('\n')
      .filter((l) => l !== '');
    const html = await pageOf(lines, ['--stuck-after', '30m']);
    expectTemplates(html, independent(lines), 30 * 60_000);
  });
});

describe('report with many companies', () => {
  it('keeps per-company totals for the filter, but draws per-company charts only up to 12 companies', async () => {
    const lines = Array.from({ length: 13 }, (_, i) =>
      JSON.stringify({
        position: i + 1,
        receivedAt: new Date(START + i * 1000).toISOString(),
        event: events.signRequestSent({
          companyId: i + 1,
          signRequestId: 100 + i,
          templateId: 10 + i,
        }),
      }),
    );
    const html = await pageOf(lines);
    for (let c = 1; c <= 13; c += 1) {
      expect(metric(html, `company.${c}.summary.sent`)).toBe(1);
      expect(metric(html, `company.${c}.funnel.requests`)).toBe(1);
    }
    expect(html).not.toContain('id="chart-templates-1"');
    expect(html).not.toContain('id="trend-table-1"');
    const twelve = await pageOf(lines.slice(0, 12));
    expect(twelve).toContain('id="chart-templates-12"');
    expect(twelve).toContain('id="trend-table-12"');
  });
});
