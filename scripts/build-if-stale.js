// @ts-check
/**
 * Builds dist/ unless it is newer than every file under src/ and the build configuration. The
 * tests' global setup (test/support/ensure-build.ts) asks {@link staleReason} the question before
 * a run; `node scripts/build-if-stale.js` does it by hand. The package has no `prepare` script
 * (it runs nothing when installed), so this is never run by npm.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, CLI_BUNDLE } from './build.js';

const ROOT = resolve(import.meta.dirname, '..');

/** @param {string} dir @returns {number} the latest modification time under `dir` */
const newestUnder = (dir) => {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
};

/**
 * @returns {number | undefined} when dist/ was built (its last step, the CLI's bundle, was
 * written), or undefined when it was not
 */
export const builtAt = () => {
  try {
    return statSync(CLI_BUNDLE).mtimeMs;
  } catch {
    return undefined;
  }
};

/** @returns {string | undefined} why dist/ must be rebuilt, or undefined if it is up to date */
export const staleReason = () => {
  const built = builtAt();
  if (built === undefined) return 'dist/cli/main.js is missing';
  const sources = Math.max(
    newestUnder(join(ROOT, 'src')),
    ...['tsconfig.json', 'tsconfig.build.json'].map((file) => statSync(join(ROOT, file)).mtimeMs),
  );
  return sources > built ? 'src/ changed since the last build' : undefined;
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href && staleReason() !== undefined) {
  try {
    await build();
  } catch {
    process.exitCode = 1; // tsc or esbuild has said why
  }
}
