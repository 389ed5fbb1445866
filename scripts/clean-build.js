// @ts-check
/**
 * `prepack`: an empty dist/ compiled afresh, so a tarball never carries the
 * output of a source file that has since been renamed or deleted.
 *
 * `node scripts/clean-build.js --no-check` emits without type checking
 * (tsc's `--noCheck`: the same files, in about half the CPU). `npm test` builds
 * so, because its type check runs beside the tests over src/ and test/ at
 * once; checking src/ in the build too would only repeat it, on the one part
 * of the run where a single core works. `prepack` checks.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const noCheck = process.argv.slice(2).includes('--no-check');
rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
execFileSync(
  process.execPath,
  [
    join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    'tsconfig.build.json',
    ...(noCheck ? ['--noCheck'] : []),
  ],
  {
    cwd: ROOT,
    stdio: 'inherit',
  },
);
