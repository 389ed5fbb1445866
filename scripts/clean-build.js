// @ts-check
/**
 * `prepack`: an empty dist/ compiled afresh, so a tarball never carries the
 * output of a source file that has since been renamed or deleted. (npm then
 * runs `prepare`, which compiles once more: cheap next to a stale package.)
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
execFileSync(
  process.execPath,
  [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
  {
    cwd: ROOT,
    stdio: 'inherit',
  },
);
