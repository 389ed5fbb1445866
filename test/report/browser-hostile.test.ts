/**
 * The report of a log full of hostile names (the hostile corpus, 500-character
 * words, emoji, right-to-left text, U+202E) in chromium at 390 and 1280 px,
 * light and dark: the names show as text, the layout holds, and the page
 * makes no request and logs no error.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
import { connectBrowser } from '../support/browser.js';
import {
  barLabels,
  crowdedLabels,
  csvAndRows,
  injected,
  layoutOf,
  screenshotOnFailure,
  smallText,
  VIEWS,
} from './browser-checks.js';
import { EXTRA_NAMES, hostileLogLines } from './hostile-log.js';

let browser: Browser;
let page: Page;
let pageUrl: string;
const problems: string[] = [];
const requests: string[] = [];

beforeAll(async () => {
  const dir = await tempDir();
  const log = join(dir, 'hostile.ndjson');
  await writeFile(log, `${hostileLogLines().join('\n')}\n`);
  const out = join(dir, 'report.html');
  const report = await runCli(['report', log, '--out', out]);
  expect(report.stderr).toBe('');
  expect(report.code).toBe(0);
  pageUrl = pathToFileURL(out).href;
  browser = await connectBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 1200 } });
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') {
      problems.push(`${message.type()}: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => requests.push(request.url()));
  page.on('dialog', (dialog) => problems.push(`dialog: ${dialog.message()}`));
  await page.goto(pageUrl, { waitUntil: 'load' });
});

afterAll(async () => {
  await browser?.close();
  await removeTempDirs();
});

describe('the report of a log of hostile names in chromium', () => {
  it('shows every name as text: no element, attribute or script from the log', async () => {
    expect(await injected(page)).toEqual([]);
    const text = await page.$eval('body', (body) => body.textContent ?? '');
    expect(text).toContain('<img src=x onerror=alert(1)><script>alert(1)</script>');
    // U+202E shows as its escape and reorders nothing.
    expect(text).toContain('invoice\\u202efdp.exe');
    expect(text).not.toContain('\u202E');
  });

  it('keeps a name whole on hover and in the CSV, cut in the cell', async () => {
    const long = EXTRA_NAMES[0] ?? '';
    const cell = page.locator(`#templates-table th.name[title="${long}"]`);
    expect(await cell.count()).toBe(1);
    const box = await cell.boundingBox();
    expect(box?.width ?? 0).toBeLessThan(260);
    expect(box?.height ?? 0).toBeLessThan(40);
    const csv = (await csvAndRows(page)).find((t) => t.table === 'templates-table');
    expect(csv?.csv.some((row) => row[0] === long)).toBe(true);
  });

  it('isolates a right-to-left name from its company suffix in the chart', async () => {
    const labels = (await barLabels(page)).filter((l) => /[\u0590-\u06ff]/.test(l.name));
    expect(labels.length).toBeGreaterThan(0);
    for (const label of labels) {
      expect(label.suffixLeft, label.name).toBeGreaterThanOrEqual(label.nameRight - 1);
    }
  });

  it.each(VIEWS)(
    'at $width px, $scheme: nothing wider than its column, no text under 11 px, rows of bounded height, CSVs equal to their tables',
    async ({ width, scheme }) => {
      await page.setViewportSize({ width, height: 1200 });
      await page.emulateMedia({ colorScheme: scheme });
      screenshotOnFailure(page, `report-hostile-${width}-${scheme}`);
      const layout = await layoutOf(page);
      expect(layout.problems).toEqual([]);
      expect(layout.scrollingTables).toEqual([]);
      expect(await smallText(page)).toEqual([]);
      expect(await crowdedLabels(page)).toEqual([]);
      // A name of 20,000 characters takes a line or a few, not a screenful.
      const tallest = await page.$$eval('tbody tr', (rows) =>
        Math.max(...rows.map((row) => row.getBoundingClientRect().height)),
      );
      expect(tallest).toBeLessThan(width === 390 ? 1000 : 200);
      for (const { table, csv, shown } of await csvAndRows(page)) {
        expect(csv, table).toEqual(shown);
      }
    },
  );

  it('made no request but the file itself, and logged no error, warning or dialog', () => {
    expect(requests).toEqual([pageUrl]);
    expect(problems).toEqual([]);
  });
});
