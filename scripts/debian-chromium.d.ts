/** Type declarations for `scripts/debian-chromium.js` (plain ESM JavaScript). */
import type { Browser } from 'playwright-core';

/** Where Debian's `chromium` package installs the browser. */
export const CHROMIUM_PATH: string;

/** Launches it headless, or throws a one-line error when it is not installed. */
export function launchChromium(): Promise<Browser>;
