/** Type declarations for `scripts/chromium.js` (plain ESM JavaScript). */
import type { Browser, BrowserServer } from 'playwright-core';

/** The variable that names a Chrome or Chromium executable to use instead of the default. */
export const CHROMIUM_VARIABLE: 'SIGNFOLD_CHROMIUM';

/** The error when no browser is found for the platform. */
export const NO_CHROMIUM: string;

/** The flags the browser starts with (beside playwright-core's own and `--headless`). */
export const CHROMIUM_ARGS: readonly string[];

/**
 * The browser to launch: `SIGNFOLD_CHROMIUM`, else `@sparticuz/chromium`'s on Linux x64
 * (unpacked once per version), else a Chrome, Edge or Chromium at its usual paths; with the
 * variables it needs beside `process.env`. Throws `NO_CHROMIUM` when there is none.
 */
export function findChromium(): Promise<{
  readonly executablePath: string;
  readonly env: Readonly<Record<string, string>>;
}>;

/** Launches the browser headless, for this process alone (bench/report.js). */
export function launchChromium(): Promise<Browser>;

/** Launches the browser headless as a server on 127.0.0.1 that other processes connect to. */
export function launchChromiumServer(): Promise<BrowserServer>;
