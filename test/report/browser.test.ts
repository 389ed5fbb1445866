import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
import { connectBrowser } from '../support/browser.js';
import {
  crowdedLabels,
  csvAndRows,
  displayOf,
  injected,
  layoutOf,
  screenshotOnFailure,
  smallText,
  VIEWS,
} from './browser-checks.js';
import { shownTotalsProbe } from './page-probes.js';

const EXAMPLE = 'examples/events.ndjson';

interface ReplayJson {
  processed: number;
  stats: Record<string, number>;
  counts: Record<string, Record<string, number>>;
  signRequests: { id: number; deleted: boolean; status: string; templateId?: number }[];
  participants: { signRequestId: number; status: string }[];
  quarantine: unknown[];
}

let browser: Browser;
let page: Page;
let pageUrl: string;
let replay: ReplayJson;
const problems: string[] = [];
const requests: string[] = [];

beforeAll(async () => {
  const out = join(await tempDir(), 'report.html');
  const [report, json] = await Promise.all([
    // "Now" 21 minutes after the last delivery, as if made while the log was live: the page as
    // its screenshot shows it (without --now, the clock would make every open request stuck).
    runCli(['report', EXAMPLE, '--out', out, '--now', '2025-10-12T10:00:00Z']),
    runCli(['replay', '--json', EXAMPLE]),
  ]);
  expect(report.stderr).toBe('');
  expect(report.code).toBe(0);
  replay = JSON.parse(json.stdout) as ReplayJson;
  pageUrl = pathToFileURL(out).href;
  browser = await connectBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 1500 } });
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') {
      problems.push(`${message.type()}: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(pageUrl, { waitUntil: 'load' });
  // `npm run docs:screenshot`: the page as first opened (the tests below sort and filter it).
  if (process.env.SIGNFOLD_UPDATE_SCREENSHOT === '1') {
    await page.screenshot({ path: join(ROOT, 'docs', 'report-screenshot.png') });
  }
});

afterAll(async () => {
  await browser?.close();
  await removeTempDirs();
});

/** Every `[data-metric]` of the page: name → value, checking the text shows the same number. */
const metrics = async (): Promise<Map<string, number>> => {
  const found = await page.$$eval('[data-metric]', (elements) =>
    elements.map((e) => [
      e.getAttribute('data-metric'),
      e.getAttribute('data-value'),
      e.textContent,
    ]),
  );
  const byName = new Map<string, number>();
  for (const [name, value, text] of found) {
    if (value === null) continue;
    // Counts show their value; rates and durations are formatted (92.0 %, 11 min).
    if (/^[\d,]+$/.test(text ?? ''))
      expect(Number((text ?? '').replaceAll(',', '')), name ?? '').toBe(Number(value));
    byName.set(name ?? '', Number(value));
  }
  return byName;
};

/** The templates table's and the summary's totals as shown (see shownTotalsProbe). */
const shownFigures = (index: number): Promise<{ rows: number; footer: number; sent: number }> =>
  page.evaluate(shownTotalsProbe, index);

describe('the report of the example log in chromium', () => {
  it('shows the figures of signfold replay --json', async () => {
    const shown = await metrics();
    const expected = new Map<string, number>([['processed', replay.processed]]);
    for (const name of ['applied', 'noOps', 'conflicts', 'invalid']) {
      expected.set(`stats.${name}`, replay.stats[name] ?? Number.NaN);
    }
    for (const [projection, counts] of Object.entries(replay.counts)) {
      for (const [status, n] of Object.entries(counts))
        expected.set(`counts.${projection}.${status}`, n);
    }
    expected.set('quarantine.total', replay.quarantine.length);
    // The funnel's totals: requests and participants of the non-deleted requests.
    const live = new Map(replay.signRequests.filter((r) => !r.deleted).map((r) => [r.id, r]));
    const withTemplate = [...live.values()].filter((r) => r.templateId !== undefined);
    expected.set('funnel.completed', withTemplate.filter((r) => r.status === 'completed').length);
    expected.set('funnel.declined', withTemplate.filter((r) => r.status === 'declined').length);
    const participants = replay.participants.filter((p) => live.has(p.signRequestId));
    expected.set('funnel.participants.sent', participants.length);
    expected.set(
      'funnel.participants.signed',
      participants.filter((p) => p.status === 'signed').length,
    );
    expected.set(
      'funnel.participants.declined',
      participants.filter((p) => p.status === 'declined').length,
    );
    for (const [name, value] of expected)
      expect({ name, value: shown.get(name) }).toEqual({ name, value });
    expect(shown.get('processed')).toBe(3917);
  });

  it('draws every chart, each with bars, and says so in one line when one has nothing to draw', async () => {
    for (const id of ['chart-funnel', 'chart-durations', 'chart-volume', 'chart-conflicts']) {
      const chart = page.locator(`svg#${id}`);
      const box = await chart.boundingBox();
      expect(box?.width ?? 0, id).toBeGreaterThan(100);
      expect(box?.height ?? 0, id).toBeGreaterThan(50);
      const bars = await chart
        .locator('rect')
        .evaluateAll(
          (rects) =>
            rects.filter(
              (r) => r.getBoundingClientRect().width > 0 && r.getBoundingClientRect().height > 0,
            ).length,
        );
      expect(bars, id).toBeGreaterThan(0);
    }
    // The completion trend is a line.
    expect(await page.locator('svg#chart-completion path.line').count()).toBe(1);
  });

  it('gives every chart axis titles, and value ticks that are round numbers', async () => {
    const figures = await page.$$eval('figure.chart-figure', (all) =>
      all.map((f) => ({
        titles: [...f.querySelectorAll('.axis-title')].map((t) => t.textContent ?? ''),
        ticks: [...f.querySelectorAll('svg.y-axis text')].map((t) => t.textContent ?? ''),
      })),
    );
    expect(figures.length).toBeGreaterThanOrEqual(5);
    for (const { titles, ticks } of figures) {
      expect(titles).toHaveLength(2);
      for (const title of titles) expect(title.length).toBeGreaterThan(3);
      // What d3's nice ticks give: multiples of a step of 1, 2, 2.5 or 5 times a power of ten
      // (0, 20, 40 … 120 for a company's chart as much as 0, 50, 100 for the whole log's).
      const values = ticks.map((tick) => Number(tick.replaceAll(',', '').replace(' %', '')));
      const step = (values[1] ?? 0) - (values[0] ?? 0);
      if (values.length > 1)
        expect(/^(1|2|25|5)0*$/.test(String(step)), ticks.join(' ')).toBe(true);
      for (const n of values) expect(n % (step || 1), ticks.join(' ')).toBe(0);
    }
  });

  it('paints each meaning in one colour across charts: red is declined and nothing else', async () => {
    const swatches = await page.$$eval('ul.legend li', (items) =>
      items.map((li) => [li.textContent ?? '', li.querySelector('.sw')?.classList[1] ?? '']),
    );
    expect(swatches.length).toBeGreaterThanOrEqual(6);
    const byName = new Map<string, Set<string>>();
    for (const [name, colour] of swatches) {
      byName.set(name ?? '', (byName.get(name ?? '') ?? new Set()).add(colour ?? ''));
    }
    for (const [name, colours] of byName) expect(colours.size, name).toBe(1);
    expect(byName.get('declined')).toEqual(new Set(['k-declined']));
    expect(byName.get('completed')).toEqual(new Set(['k-completed']));
    expect(byName.get('sent')).toEqual(new Set(['k-sent']));
    for (const [name, colour] of swatches) {
      if (colour === 'k-declined') expect(name).toMatch(/declined/);
    }
    const fills = await page.$$eval('svg.chart rect, svg.chart path', (marks) =>
      marks.map((m) => m.getAttribute('class') ?? ''),
    );
    for (const fill of fills) expect(fill).toMatch(/(^| )k-[a-z-]+$/);
  });

  it('sorts a table and filters by company without a console error, totals and CSV following', async () => {
    // Requests sent: the first `sent` column, under the `requests` group.
    const index = await page.$$eval('#templates-table thead tr:last-child th', (ths) =>
      ths.findIndex((th) => th.textContent?.startsWith('sent')),
    );
    expect(index).toBeGreaterThan(0);
    const requestsColumn = () =>
      page.$$eval(
        '#templates-table tbody tr',
        (rows, i) => rows.map((row) => Number(row.children[i]?.getAttribute('data-value'))),
        index,
      );
    const header = `#templates-table thead tr:last-child th:nth-child(${index + 1}) button`;
    await page.click(header);
    const ascending = await requestsColumn();
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    await page.click(header);
    const descending = await requestsColumn();
    expect(descending).toEqual([...ascending].sort((a, b) => b - a));
    await page.selectOption('#company-filter', '2');
    const visible = await page.$$eval('#templates-table tbody tr', (rows) =>
      rows.filter((row) => !row.hidden).map((row) => row.getAttribute('data-company')),
    );
    expect(visible.length).toBeGreaterThan(0);
    expect(new Set(visible)).toEqual(new Set(['2']));
    // The CSV lists what the table shows: company 2's rows, in the order shown.
    for (const { table, csv, shown } of await csvAndRows(page)) {
      expect(csv, table).toEqual(shown);
    }
    const templatesCsv = (await csvAndRows(page)).find((t) => t.table === 'templates-table');
    expect(templatesCsv?.csv.length).toBe(visible.length + 2);
    // The totals follow: the footer adds up the rows shown, the summary is company 2's.
    const company2 = await shownFigures(index);
    await page.selectOption('#company-filter', '');
    const all = await shownFigures(index);
    expect(company2.footer).toBe(company2.rows);
    expect(all.footer).toBe(all.rows);
    expect(company2.footer).toBeLessThan(all.footer);
    const shown = await metrics();
    expect(company2.sent).toBe(shown.get('company.2.summary.sent'));
    expect(all.sent).toBe(shown.get('summary.sent'));
    expect(company2.sent).toBeLessThan(all.sent);
  });

  it.each(VIEWS)(
    'at $width px, $scheme: nothing wider than its column, no text under 11 px, CSVs equal to their tables',
    async ({ width, scheme }) => {
      await page.setViewportSize({ width, height: 1500 });
      await page.emulateMedia({ colorScheme: scheme });
      screenshotOnFailure(page, `report-example-${width}-${scheme}`);
      const layout = await layoutOf(page);
      expect(layout.problems).toEqual([]);
      // No table scrolls in its wrapper: all fit at 1280 px, and stack on a phone.
      expect(layout.scrollingTables).toEqual([]);
      expect(await smallText(page)).toEqual([]);
      expect(await crowdedLabels(page)).toEqual([]);
      expect(await injected(page)).toEqual([]);
      for (const { table, csv, shown } of await csvAndRows(page)) {
        expect(csv, table).toEqual(shown);
      }
      if (width === 1280) {
        // With ordinary names the templates table fits its column.
        const fit = await page.$eval('#templates-table', (t) => [
          t.getBoundingClientRect().width,
          t.parentElement?.clientWidth ?? 0,
        ]);
        expect(fit[0]).toBeLessThanOrEqual(fit[1] ?? 0);
      } else {
        // Rows stack: one cell under another, each with its label.
        expect(await displayOf(page, '#templates-table tbody tr')).toBe('grid');
      }
      await page.setViewportSize({ width: 1280, height: 1500 });
      await page.emulateMedia({ colorScheme: 'light' });
    },
  );

  it('downloads a table as a CSV file: the bytes of its data: URL, without a request', async () => {
    const link = page.locator('a.csv[data-table="templates-table"]');
    const href = (await link.getAttribute('href')) ?? '';
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('templates-table.csv');
    // Over a connection to the browser server a download has no path of its own: save a copy.
    const copy = join(await tempDir(), 'templates-table.csv');
    await download.saveAs(copy);
    const saved = await readFile(copy);
    expect(saved.equals(Buffer.from(href.slice(href.indexOf(',') + 1), 'base64'))).toBe(true);
    expect(saved.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });

  it('without JavaScript: complete, laid out, each CSV listing every row of its table', async () => {
    const context = await browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: 390, height: 1200 },
    });
    try {
      const plain = await context.newPage();
      await plain.goto(pageUrl, { waitUntil: 'load' });
      expect((await layoutOf(plain)).problems).toEqual([]);
      expect(await smallText(plain)).toEqual([]);
      const counts = await plain.$$eval('table', (tables) =>
        tables.map((t) => [t.id, t.querySelectorAll('tbody tr, tfoot tr').length] as const),
      );
      const csvs = await csvAndRows(plain);
      expect(csvs.length).toBe(counts.length);
      for (const [id, rows] of counts) {
        // Header, then every row: those of every company's totals too.
        expect(csvs.find((c) => c.table === id)?.csv.length, id).toBe(rows + 1);
      }
    } finally {
      await context.close();
    }
  });

  it('made no request but the file itself, and logged no error or warning', async () => {
    expect(requests).toEqual([pageUrl]);
    expect(problems).toEqual([]);
  });
});
