// @ts-check
/**
 * `prepack`: an empty dist/ built afresh (scripts/build.js), so a tarball never carries the
 * output of a source file that has since been renamed or deleted.
 *
 * `node scripts/clean-build.js --no-check` emits without type checking (tsc's `--noCheck`: the
 * same files, in about half the CPU). `npm test` builds so, because its type check runs beside
 * the tests over src/ and test/ at once; checking src/ in the build too would only repeat it, on
 * the one part of the run where a single core works. `prepack` checks, unless
 * `SIGNFOLD_BUILD_NO_CHECK=1` is set: the package test packs a clean copy of the checkout inside
 * `npm test`, whose own type check already covers the same files.
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from './build.js';

const ROOT = resolve(import.meta.dirname, '..');
rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
try {
  const unchecked =
    process.argv.slice(2).includes('--no-check') || process.env.SIGNFOLD_BUILD_NO_CHECK === '1';
  await build({ check: !unchecked });
} catch {
  process.exitCode = 1; // tsc or esbuild has said why
}
