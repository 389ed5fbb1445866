/**
 * A report link of `signfold read-link` clicked in Chromium on a page of
 * another site (as in an e-mail): the navigation starts cross-site, so a
 * `SameSite=Strict` cookie would not be sent on the redirect that follows
 * and the person would land on a 401. The test clicks it that way and lands
 * on the report, with an HttpOnly, SameSite=Lax cookie no script can read,
 * an address bar without the link, and the read API's pages open too; a
 * changed link is the 401 page that says so.
 */
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { connectBrowser } from '../../support/browser.js';
import { HOSTILE_CORPUS } from '../../support/hostile-corpus.js';
import { ROOT, removeTempDirs, runBinary, tempDir } from '../cli-helpers.js';
import { type ServeProcess, secretEnv, startServe } from './serve-process.js';

const TOKEN = 'browser-link-token-0123456789abcdef';
/** The other site the link is clicked on: answered by the test, never looked up. */
const MAIL = 'http://mail.example.test';

let browser: Browser;
let serve: ServeProcess;
let link: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  const log = join(await tempDir(), 'hostile.ndjson');
  await copyFile(HOSTILE_CORPUS, log);
  serve = await startServe(
    ['--log', log, '--read-token-env', 'READ_TOKEN:1'],
    secretEnv({ READ_TOKEN: TOKEN }),
  );
  const printed = await runBinary(
    ['read-link', '--read-token-env', 'READ_TOKEN', '--url', serve.url, '--expires', '2h'],
    ROOT,
    { ...process.env, READ_TOKEN: TOKEN },
  );
  expect(printed.code).toBe(0);
  link = printed.stdout.trim();
  browser = await connectBrowser();
});

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  await removeTempDirs();
});

/** A page of the other site showing `href` as a link, clicked; the page after the navigation. */
const clickFromMail = async (href: string, landsOn: string): Promise<Page> => {
  const context = await browser.newContext();
  contexts.push(context);
  await context.route(`${MAIL}/**`, (route) =>
    route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><title>mail</title><a id="open" href="${href}">your report</a>`,
    }),
  );
  const page = await context.newPage();
  await page.goto(`${MAIL}/inbox`, { timeout: 10_000 });
  await Promise.all([
    page.waitForURL(landsOn, { timeout: 15_000, waitUntil: 'load' }),
    page.click('#open', { timeout: 5_000 }),
  ]);
  return page;
};

it('lands on the report from a click on another site, through a cookie no script reads', async () => {
  const report = `${serve.url}/report`;
  const page = await clickFromMail(link, report);
  expect(page.url()).toBe(report);
  expect(await page.title()).toBe('signfold report: the live state of companies 1');
  expect(await page.evaluate('document.cookie')).toBe('');
  const cookies = await page.context().cookies(serve.url);
  expect(cookies).toHaveLength(1);
  const [cookie] = cookies;
  expect(cookie?.name).toBe('signfold-read');
  expect(cookie?.httpOnly).toBe(true);
  expect(cookie?.sameSite).toBe('Lax');
  expect(cookie?.secure).toBe(false);
  const expires = Number(new URL(link).searchParams.get('link')?.split('.')[0]);
  expect(cookie?.expires).toBeLessThanOrEqual(expires);
  expect(cookie?.expires).toBeGreaterThan(Date.now() / 1000 + 7000);

  // The same cookie opens the read API's pages, for company 1 only.
  const list = await page.goto(`${serve.url}/api/sign-requests?limit=100`, { timeout: 10_000 });
  expect(list?.status()).toBe(200);
  const body = (await list?.json()) as { signRequests: { companyId: number }[] };
  expect(body.signRequests.length).toBeGreaterThan(0);
  expect(new Set(body.signRequests.map(({ companyId }) => companyId))).toEqual(new Set([1]));
  // Reloading the report needs nothing more.
  const again = await page.goto(report, { timeout: 10_000 });
  expect(again?.status()).toBe(200);
});

it('shows the 401 page for a changed link, and no cookie is set', async () => {
  const changed = link.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'));
  const page = await clickFromMail(changed, changed);
  expect(await page.locator('h1').textContent()).toBe('This link does not open the report');
  expect(await page.locator('body').textContent()).toContain('not valid');
  expect(await page.context().cookies(serve.url)).toEqual([]);
  const report = await page.goto(`${serve.url}/report`, { timeout: 10_000 });
  expect(report?.status()).toBe(401);
});
