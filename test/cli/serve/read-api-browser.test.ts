/**
 * `GET /report` of `signfold serve` in Chromium (playwright-core, which
 * never downloads a browser): with a bearer token the live page of the
 * token's companies loads, runs only its own script, asks for nothing else,
 * and shows the hostile corpus's markup as text (nothing injected); without
 * a token the browser gets the 401.
 */
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { injected } from '../../report/browser-checks.js';
import { connectBrowser } from '../../support/browser.js';
import { HOSTILE_CORPUS } from '../../support/hostile-corpus.js';
import { removeTempDirs, tempDir } from '../cli-helpers.js';
import { type ServeProcess, secretEnv, startServe } from './serve-process.js';

const TOKEN = 'browser-token-0123456789abcdef';

let browser: Browser;
let serve: ServeProcess;

beforeAll(async () => {
  const log = join(await tempDir(), 'hostile.ndjson');
  await copyFile(HOSTILE_CORPUS, log);
  serve = await startServe(
    ['--log', log, '--read-token-env', 'READ_TOKEN:1'],
    secretEnv({ READ_TOKEN: TOKEN }),
  );
  browser = await connectBrowser();
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  await removeTempDirs();
});

it('loads the live report with a token: its own script only, no other request, nothing injected', async () => {
  const context = await browser.newContext({
    extraHTTPHeaders: { authorization: `Bearer ${TOKEN}` },
    viewport: { width: 1280, height: 1200 },
  });
  try {
    const page = await context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => requests.push(request.url()));
    const response = await page.goto(`${serve.url}/report`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(await page.title()).toMatch(/^signfold report: the live state of companies 1$/);
    expect(await page.locator('h1').textContent()).toBe('signfold report');
    expect(await injected(page)).toEqual([]);
    expect(problems).toEqual([]);
    expect(requests).toEqual([`${serve.url}/report`]);
    // The page's own script ran (its CSV links are data: URLs it rewrites).
    expect(await page.locator('a.csv').count()).toBeGreaterThan(0);
    // Reloading makes the page again from the current state.
    const again = await page.reload({ waitUntil: 'load' });
    expect(again?.status()).toBe(200);
  } finally {
    await context.close();
  }
});

it('gets the 401 without a token', async () => {
  const page = await browser.newPage();
  try {
    const response = await page.goto(`${serve.url}/report`);
    expect(response?.status()).toBe(401);
    expect(response?.headers()['www-authenticate']).toBe('Bearer realm="signfold"');
  } finally {
    await page.close();
  }
});
