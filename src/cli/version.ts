/** The package version, read from `package.json` so it is never out of date. */
import { readFile } from 'node:fs/promises';

/**
 * Reads the version from the package's `package.json`. The URL is relative
 * to this module, which sits two levels below the package root both in
 * `src/cli/` and in `dist/cli/`.
 */
export const packageVersion = async (): Promise<string> => {
  const text = await readFile(new URL('../../package.json', import.meta.url), 'utf8');
  const { version } = JSON.parse(text) as { version?: unknown };
  return typeof version === 'string' ? version : 'unknown';
};
