// @ts-check
/**
 * Writes test/support/file-durations.json from vitest's cache of the last run (the seconds each
 * test file took), for the order of a run on a fresh clone (test/support/duration-sequencer.ts).
 * Run it after a whole `npm test` on a quiet machine: `node scripts/write-test-durations.js`.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const CACHE = join(ROOT, 'node_modules', '.vite', 'vitest');
const found = existsSync(CACHE)
  ? readdirSync(CACHE)
      .map((dir) => join(CACHE, dir, 'results.json'))
      .filter((file) => existsSync(file))
  : [];
if (found.length !== 1) {
  console.error(
    `write-test-durations: expected one vitest cache under ${CACHE}, found ${found.length}`,
  );
  process.exit(1);
}
/** @type {{ results: [string, { duration: number }][] }} */
const { results } = JSON.parse(readFileSync(/** @type {string} */ (found[0]), 'utf8'));
/** @type {Record<string, number>} */
const seconds = {};
for (const [key, { duration }] of [...results].sort(([a], [b]) => (a < b ? -1 : 1))) {
  const path = key.slice(key.indexOf(':') + 1);
  if (existsSync(join(ROOT, path))) seconds[path] = Math.round(duration / 100) / 10;
}
writeFileSync(
  join(ROOT, 'test', 'support', 'file-durations.json'),
  `${JSON.stringify(seconds, null, 2)}\n`,
);
console.log(`write-test-durations: ${Object.keys(seconds).length} files`);
