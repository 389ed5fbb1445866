// @ts-check
/**
 * `prepare`: builds dist/ unless it is newer than every file under src/ and the build
 * configuration. npm runs `prepare` after `prepack` when packing, which has just built dist/
 * afresh: a second compile of the same sources would only cost time. On a git install, or in a
 * clone after `npm ci`, there is no dist/ yet, and it builds.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

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
const builtAt = () => {
  try {
    return statSync(join(ROOT, 'dist', 'index.js')).mtimeMs;
  } catch {
    return undefined;
  }
};

const built = builtAt();
const sources = Math.max(
  newestUnder(join(ROOT, 'src')),
  ...['tsconfig.json', 'tsconfig.build.json'].map((file) => statSync(join(ROOT, file)).mtimeMs),
);
if (built === undefined || sources > built) {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    { cwd: ROOT, stdio: 'inherit' },
  );
}
