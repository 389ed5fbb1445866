// @ts-check
/**
 * Debian's chromium, driven by playwright-core (which never downloads a
 * browser), headless: shared by the browser tests and bench/report.js.
 */
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

/** Where Debian's `chromium` package installs the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Launches it headless, or throws a one-line error when it is not installed. */
export const launchChromium = async () => {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium (.ci/run does)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
};
