/**
 * A long stuck list on a phone (issue 34: 66 stuck requests made a page
 * 33,800 px tall at 390 px): in chromium at 390×844, the list shows its
 * first rows and a "show all" control, stays within a few screens, and
 * "show all" reveals every row, with JavaScript and without. The CSV still
 * lists every row.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHONE_ROWS } from '../../src/report/render/html-table.js';
import { removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
import { connectBrowser } from '../support/browser.js';
import { csvAndRows, layoutOf, screenshotOnFailure } from './browser-checks.js';
import { listHeightProbe } from './page-probes.js';
import { DAY, STUCK_START, stuckLogLines } from './stuck-log.js';

const PHONE = { width: 390, height: 844 };
const STUCK = 66;

let browser: Browser;
let pageUrl: string;
/** The same report with ten times as many stuck requests. */
let tenfoldUrl: string;

/**
 * A log of many stuck requests, 300 of them fully signed without a
 * completion (issue 46: the phone page was 11,661 px tall).
 */
const LOST = 300;
/** How tall the phone page of that log may be: 13 screens (it was 14,715 px, 17). */
const PHONE_PAGE_BOUND = 13 * PHONE.height;
let lostUrl: string;

/** The report of a log of `count` stuck requests (`signed` of them fully signed), as a file URL. */
const stuckReport = async (count: number, signed = 0): Promise<string> => {
  const dir = await tempDir();
  const log = join(dir, 'stuck.ndjson');
  await writeFile(log, `${stuckLogLines(count, signed).join('\n')}\n`);
  const out = join(dir, 'report.html');
  // A month on, every request is stuck (the default --stuck-after is 7 days).
  const now = new Date(STUCK_START + 30 * DAY).toISOString();
  const report = await runCli(['report', log, '--out', out, '--now', now]);
  expect(report.code, report.stderr).toBe(0);
  return pathToFileURL(out).href;
};

beforeAll(async () => {
  pageUrl = await stuckReport(STUCK);
  tenfoldUrl = await stuckReport(10 * STUCK);
  lostUrl = await stuckReport(10 * STUCK, LOST);
  browser = await connectBrowser();
});

afterAll(async () => {
  await browser?.close();
  await removeTempDirs();
});

/** The stuck list's rows (all, and those that show), the height of its section, and the page's. */
const measure = (page: Page) => page.evaluate(listHeightProbe, 'stuck-table');

const phonePage = async (javaScript: boolean): Promise<{ context: BrowserContext; page: Page }> => {
  const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: javaScript });
  const page = await context.newPage();
  await page.goto(pageUrl, { waitUntil: 'load' });
  return { context, page };
};

describe('a long stuck list on a phone in chromium', () => {
  it.each([true, false])(
    'shows the first rows within a few screens, and every row after "show all" (JavaScript %s)',
    async (javaScript) => {
      const { context, page } = await phonePage(javaScript);
      try {
        screenshotOnFailure(page, `report-phone-stuck-js-${javaScript}`);
        const before = await measure(page);
        expect(before.rows).toBe(STUCK);
        expect(before.shown).toBe(PHONE_ROWS);
        expect(before.section).toBeLessThanOrEqual(6 * PHONE.height);
        const control = page.locator('details.more[data-table="stuck-table"] summary');
        expect(await control.isVisible()).toBe(true);
        await control.click();
        const after = await measure(page);
        expect(after.shown).toBe(STUCK);
        // The rows were there all along: opening grows the list by the 56 hidden rows.
        expect(after.section).toBeGreaterThan(before.section * 3);
        expect((await layoutOf(page)).problems).toEqual([]);
        await control.click();
        expect((await measure(page)).shown).toBe(PHONE_ROWS);
      } finally {
        await context.close();
      }
    },
  );

  it('is as tall with ten times the stuck requests: the page no longer grows with the lists', async () => {
    const heights: number[] = [];
    for (const url of [pageUrl, tenfoldUrl]) {
      const context = await browser.newContext({ viewport: PHONE });
      try {
        const page = await context.newPage();
        await page.goto(url, { waitUntil: 'load' });
        heights.push(Number(await page.evaluate('document.documentElement.scrollHeight')));
      } finally {
        await context.close();
      }
    }
    expect(heights[1]).toBe(heights[0]);
  });

  it('keeps each CSV equal to every row of its table, collapsed or not', async () => {
    const { context, page } = await phonePage(true);
    try {
      const stuck = (await csvAndRows(page)).find((t) => t.table === 'stuck-table');
      // The header, then every stuck request.
      expect(stuck?.csv.length).toBe(STUCK + 1);
      for (const { table, csv, shown } of await csvAndRows(page)) expect(csv, table).toEqual(shown);
    } finally {
      await context.close();
    }
  });

  it('lists every row on a wide screen and in print, with no control', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(pageUrl, { waitUntil: 'load' });
      expect((await measure(page)).shown).toBe(STUCK);
      expect(await page.locator('details.more').first().isVisible()).toBe(false);
      await page.setViewportSize(PHONE);
      await page.emulateMedia({ media: 'print' });
      expect((await measure(page)).shown).toBe(STUCK);
    } finally {
      await context.close();
    }
  });
});

describe('a log with many requests fully signed without a completion, on a phone in chromium', () => {
  const open = async (javaScript: boolean) => {
    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: javaScript });
    const page = await context.newPage();
    await page.goto(lostUrl, { waitUntil: 'load' });
    return { context, page };
  };

  it(`keeps the page within ${PHONE_PAGE_BOUND / PHONE.height} screens`, async () => {
    const { context, page } = await open(true);
    try {
      screenshotOnFailure(page, 'report-phone-lost-completions');
      const height = Number(await page.evaluate('document.documentElement.scrollHeight'));
      expect(height).toBeLessThanOrEqual(PHONE_PAGE_BOUND);
      // The folded ids are in the page, not shown: the list takes a few lines.
      const list = page.locator('#missed-completions');
      expect((await list.boundingBox())?.height ?? Number.POSITIVE_INFINITY).toBeLessThan(
        PHONE.height,
      );
      expect((await layoutOf(page)).problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it.each([true, false])(
    'opens the folded ids and the reconcile command (JavaScript %s)',
    async (javaScript) => {
      const { context, page } = await open(javaScript);
      try {
        screenshotOnFailure(page, `report-phone-lost-folds-js-${javaScript}`);
        const block = page.locator('#missed-completions');
        // The first ids show; the last is folded away until its <details> opens.
        expect(await block.getByText('Requests 1000, 1001,').isVisible()).toBe(true);
        const last = `${1000 + LOST - 1}`;
        const folded = block.locator('details[data-fold="ids"] p.ids');
        expect(await folded.isVisible()).toBe(false);
        await block.locator('details[data-fold="ids"] summary').click();
        await expect.poll(() => folded.isVisible()).toBe(true);
        expect(await folded.textContent()).toMatch(new RegExp(`, ${last}$`));
        const command = block.locator('details[data-fold="command"] code');
        expect(await command.isVisible()).toBe(false);
        await block.locator('details[data-fold="command"] summary').click();
        await expect.poll(() => command.isVisible()).toBe(true);
        const text = (await command.textContent()) ?? '';
        expect(text).toMatch(
          /^signfold reconcile \S+stuck\.ndjson --fetch MODULE --sign-request 1000 /,
        );
        expect(text.match(/--sign-request \d+/g)).toHaveLength(LOST);
        expect(text.endsWith(`--sign-request ${last}`)).toBe(true);
        // Open, the folds fit the screen's width.
        expect((await layoutOf(page)).problems).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );

  it('prints the folded ids and the command unfolded', async () => {
    const { context, page } = await open(true);
    try {
      await page.emulateMedia({ media: 'print' });
      const block = page.locator('#missed-completions');
      await expect
        .poll(() => block.locator('details[data-fold="ids"] p.ids').isVisible())
        .toBe(true);
      expect(await block.locator('details[data-fold="command"] code').isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });
});
