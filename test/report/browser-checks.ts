/**
 * What the browser tests check on any report page, at any width and scheme:
 * nothing wider than its container, no text under 11 px, nothing injected,
 * and every CSV link equal to the rows its table shows. The probes run in the
 * page (page-probes.js).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { onTestFailed } from 'vitest';
import { ROOT } from '../cli/cli-helpers.js';
import { csvOfDataUrl, parseCsv } from './csv-reading.js';
import {
  barLabelProbe,
  csvProbe,
  displayProbe,
  injectedProbe,
  layoutProbe,
  smallTextProbe,
  tickOverlapProbe,
} from './page-probes.js';

/** The viewports and schemes every page is checked at. */
export const VIEWS = [
  { width: 1280, scheme: 'light' },
  { width: 1280, scheme: 'dark' },
  { width: 390, scheme: 'light' },
  { width: 390, scheme: 'dark' },
] as const;

/** What overflows, and which table wrappers scroll (allowed only where a test says so). */
export interface Layout {
  readonly problems: readonly string[];
  readonly scrollingTables: readonly string[];
}

/**
 * Every visible element against its container (the nearest block ancestor;
 * for SVG content, the outer `<svg>`): its box within the container's, and
 * its content within its own box (`scrollWidth`), except text cut on purpose
 * with an ellipsis and tables in a `.table-wrap` that scrolls sideways.
 */
export const layoutOf = (page: Page): Promise<Layout> => page.evaluate(layoutProbe);

/**
 * Text rendered under 11 px: the computed size of every visible text node's
 * element (times the SVG scale for chart text), and of the labels the
 * phone layout draws before cells.
 */
export const smallText = (page: Page): Promise<string[]> => page.evaluate(smallTextProbe);

/** Elements or attributes that only markup from the log could have put in the page. */
export const injected = (page: Page): Promise<string[]> => page.evaluate(injectedProbe);

/** Chart labels of one line that touch or overlap, so they would read as one. */
export const crowdedLabels = (page: Page): Promise<string[]> => page.evaluate(tickOverlapProbe);

/** The computed `display` of the first element `selector` matches. */
export const displayOf = (page: Page, selector: string): Promise<string> =>
  page.evaluate(displayProbe, selector);

/** Bar labels with a suffix: the name's right edge and the suffix's left edge. */
export const barLabels = (
  page: Page,
): Promise<{ name: string; nameRight: number; suffixLeft: number }[]> =>
  page.evaluate(barLabelProbe);

/** One table's CSV against the rows it shows: the parsed CSV, and the cells' text. */
export interface CsvAndRows {
  readonly table: string;
  readonly csv: string[][];
  readonly shown: string[][];
}

/** Every CSV link of the page, parsed, beside the header and rows its table shows (in order). */
export const csvAndRows = async (page: Page): Promise<CsvAndRows[]> => {
  const found: { table: string; href: string; shown: string[][] }[] = await page.evaluate(csvProbe);
  return found.map(({ table, href, shown }) => ({
    table,
    shown,
    // A spreadsheet shows a neutralised formula without its quote.
    csv: parseCsv(csvOfDataUrl(href)).map((fields) =>
      fields.map((f) => (/^'[=+\-@\t\r]/.test(f) ? f.slice(1) : f)),
    ),
  }));
};

/** Where a failed browser test leaves its screenshot (git-ignored). */
export const ARTIFACTS = join(ROOT, 'test-artifacts');

/**
 * When the running test fails, saves a full-page screenshot of `page` as
 * `test-artifacts/<name>.png`, to see what the failed checks saw. No check
 * reads it, so a passing test takes none: the full page of the hostile report
 * at 390 px is some 200,000 px tall, and its screenshot alone took over 30 s
 * on a busy machine. A screenshot that fails in turn is left out (the test
 * has failed already, with its own error).
 */
export const screenshotOnFailure = (page: Page, name: string): void => {
  onTestFailed(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    await page
      .screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true, timeout: 90_000 })
      .catch(() => undefined);
  });
};
