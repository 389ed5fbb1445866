/**
 * Vitest global setup: about twenty test files run the compiled library in
 * `dist/` (the CLI, the crash writer, the webhook server example, the package
 * imported by name). Rebuild it with `tsc -p tsconfig.build.json` when it is
 * missing or older than any file under `src/` (or the build configuration), so
 * that `npx vitest run` alone never tests stale code. When `dist/` is fresh
 * (as after `npm test`, which builds first) this costs one walk of `src/`.
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { builtAt, staleReason } from '../../scripts/build-if-stale.js';

const ROOT = resolve(import.meta.dirname, '../..');

export default function ensureBuild(): void {
  const reason = staleReason();
  if (reason === undefined) return;
  console.log(`[ensure-build] ${reason}: running tsc -p tsconfig.build.json --noCheck`);
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const started = Date.now();
  try {
    // Unchecked (half the CPU): type errors are the typecheck's to report.
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
  } catch (cause) {
    // tsc still emits on type errors: carry on if this run wrote dist/, with a warning (type
    // errors are the typecheck's to report); fail if it wrote nothing.
    const output = String((cause as { stdout?: string }).stdout ?? cause);
    if ((builtAt() ?? 0) < started - 1000) {
      throw new Error(`[ensure-build] building dist/ failed:\n${output}`);
    }
    console.warn(`[ensure-build] tsc reported errors but emitted dist/:\n${output}`);
  }
}
