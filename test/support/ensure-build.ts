/**
 * Vitest global setup: about twenty test files run the compiled library in
 * `dist/` (the CLI, the crash writer, the webhook server example, the package
 * imported by name). Rebuild it with `tsc -p tsconfig.build.json` when it is
 * missing or older than any file under `src/` (or the build configuration), so
 * that `npx vitest run` alone never tests stale code. When `dist/` is fresh
 * (as after `npm test`, which builds first) this costs one walk of `src/`.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const MARKER = join(ROOT, 'dist', 'index.js');
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'].map((f) => join(ROOT, f));

/** The latest modification time of the files under `dir`, recursively. */
const newestUnder = (dir: string): number => {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
};

const newestSource = (): number =>
  Math.max(newestUnder(join(ROOT, 'src')), ...CONFIGS.map((f) => statSync(f).mtimeMs));

/** The build's age marker, or `undefined` when there is no build. */
const builtAt = (): number | undefined => {
  try {
    return statSync(MARKER).mtimeMs;
  } catch {
    return undefined;
  }
};

/** Why `dist/` must be rebuilt, or `undefined` if it is up to date. */
export const staleReason = (): string | undefined => {
  const built = builtAt();
  if (built === undefined) return 'dist/index.js is missing';
  return newestSource() > built ? 'src/ changed since the last build' : undefined;
};

export default function ensureBuild(): void {
  const reason = staleReason();
  if (reason === undefined) return;
  console.log(`[ensure-build] ${reason}: running tsc -p tsconfig.build.json`);
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const started = Date.now();
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
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
