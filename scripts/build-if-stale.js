// @ts-check
/**
 * Builds dist/ unless it is newer than every file under src/ and the build configuration. The
 * tests' global setup (test/support/ensure-build.ts) asks {@link staleReason} the question before
 * a run; `node scripts/build-if-stale.js` does it by hand. The package has no `prepare` script
 * (it runs nothing when installed), so this is never run by npm.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

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

/** @returns {number | undefined} when dist/ was built, or undefined when it was not */
export const builtAt = () => {
  try {
    return statSync(join(ROOT, 'dist', 'index.js')).mtimeMs;
  } catch {
    return undefined;
  }
};

/** @returns {string | undefined} why dist/ must be rebuilt, or undefined if it is up to date */
export const staleReason = () => {
  const built = builtAt();
  if (built === undefined) return 'dist/index.js is missing';
  const sources = Math.max(
    newestUnder(join(ROOT, 'src')),
    ...['tsconfig.json', 'tsconfig.build.json'].map((file) => statSync(join(ROOT, file)).mtimeMs),
  );
  return sources > built ? 'src/ changed since the last build' : undefined;
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href && staleReason() !== undefined) {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    { cwd: ROOT, stdio: 'inherit' },
  );
}
