import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../scripts/debian-chromium.js';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';

const ARTIFACTS = join(ROOT, 'test-artifacts');
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
    runCli(['report', EXAMPLE, '--out', out]),
    runCli(['replay', '--json', EXAMPLE]),
  ]);
  expect(report.stderr).toBe('');
  expect(report.code).toBe(0);
  replay = JSON.parse(json.stdout) as ReplayJson;
  pageUrl = pathToFileURL(out).href;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1200, height: 1500 } });
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') {
      problems.push(`${message.type()}: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(pageUrl, { waitUntil: 'load' });
  // Screenshots of the page as first opened (the tests below sort and filter it).
  await mkdir(ARTIFACTS, { recursive: true });
  const light = join(ARTIFACTS, 'report-example.png');
  await page.screenshot({ path: light });
  if (process.env.SIGNFOLD_UPDATE_SCREENSHOT === '1') {
    await copyFile(light, join(ROOT, 'docs', 'report-screenshot.png'));
  }
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(ARTIFACTS, 'report-example-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
}, 60_000);

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
    expect(Number((text ?? '').replaceAll(',', ''))).toBe(Number(value));
    byName.set(name ?? '', Number(value));
  }
  return byName;
};

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

  it('draws every chart, each with bars', async () => {
    for (const id of ['chart-funnel', 'chart-durations', 'chart-activity', 'chart-conflicts']) {
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
  });

  it('sorts a table and filters by company without a console error', async () => {
    const requestsColumn = () =>
      page.$$eval('#templates-table tbody tr', (rows) =>
        rows.map((row) => Number(row.querySelectorAll('td')[3]?.getAttribute('data-value'))),
      );
    await page.click('#templates-table thead th:nth-child(5) button');
    const ascending = await requestsColumn();
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    await page.click('#templates-table thead th:nth-child(5) button');
    const descending = await requestsColumn();
    expect(descending).toEqual([...ascending].sort((a, b) => b - a));
    await page.selectOption('#company-filter', '2');
    const visible = await page.$$eval('#templates-table tbody tr', (rows) =>
      rows.filter((row) => !row.hidden).map((row) => row.getAttribute('data-company')),
    );
    expect(visible.length).toBeGreaterThan(0);
    expect(new Set(visible)).toEqual(new Set(['2']));
    await page.selectOption('#company-filter', '');
  });

  it('made no request but the file itself, and logged no error or warning', async () => {
    expect(requests).toEqual([pageUrl]);
    expect(problems).toEqual([]);
  });
});
