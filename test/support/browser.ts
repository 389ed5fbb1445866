/**
 * The browser of the browser tests: a connection to the one browser server of the test run,
 * which test/support/browser-setup.ts starts (see there why one suffices).
 */
import { type Browser, chromium } from 'playwright-core';
import { launchChromium } from '../../scripts/chromium.js';

/** The variable through which browser-setup.ts gives the workers the server's endpoint. */
export const ENDPOINT_VARIABLE = 'SIGNFOLD_BROWSER_ENDPOINT';

/** The variable through which browser-setup.ts gives the workers why it has no server. */
export const ERROR_VARIABLE = 'SIGNFOLD_BROWSER_ERROR';

/**
 * Connects to the run's browser server, for a test file's `beforeAll`; its `close()` in
 * `afterAll` closes the file's contexts and the connection, not the server. Throws the error
 * that kept browser-setup.ts from starting the browser, so that each browser test file fails
 * with it. Run without that setup (another vitest configuration), it launches a browser of the
 * file's own, which `close()` then closes.
 */
export const connectBrowser = async (): Promise<Browser> => {
  const failure = process.env[ERROR_VARIABLE];
  if (failure !== undefined) throw new Error(failure);
  const endpoint = process.env[ENDPOINT_VARIABLE];
  return endpoint === undefined ? launchChromium() : chromium.connect(endpoint);
};
