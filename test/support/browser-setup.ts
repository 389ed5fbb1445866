/**
 * Vitest global setup: one browser for the whole run. It unpacks the browser once (see
 * scripts/chromium.js) and starts it as a server; the browser test files connect to it
 * (test/support/browser.ts) instead of each launching a browser of its own.
 *
 * One server for the run suffices: a run has a few workers (`maxWorkers` in vitest.config.ts),
 * so at most that many files use it at once, and they cannot see each other: every connection
 * makes its own browser contexts (incognito-like: storage, cookies, viewport and downloads of
 * their own), and closing a connection closes only its contexts. Their pages render in renderer
 * processes of their own (a renderer never serves two contexts). Several runs at once (two
 * worktrees) each start their own.
 *
 * When the browser cannot start (none for the platform, say), the run goes on: the error is
 * given to the workers, and each browser test file fails with it.
 */
import type { BrowserServer } from 'playwright-core';
import { launchChromiumServer } from '../../scripts/chromium.js';
import { ENDPOINT_VARIABLE, ERROR_VARIABLE } from './browser.js';

export default async function browserSetup(): Promise<() => Promise<void>> {
  let server: BrowserServer | undefined;
  // Set before the test workers start, which inherit them.
  try {
    server = await launchChromiumServer();
    process.env[ENDPOINT_VARIABLE] = server.wsEndpoint();
  } catch (error) {
    process.env[ERROR_VARIABLE] = error instanceof Error ? error.message : String(error);
  }
  // Vitest runs it after the last file, whether tests failed or not.
  return async () => {
    delete process.env[ENDPOINT_VARIABLE];
    delete process.env[ERROR_VARIABLE];
    await server?.close();
  };
}
