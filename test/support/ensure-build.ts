/**
 * Vitest global setup: about twenty test files run the compiled library in
 * `dist/` (the CLI, the crash writer, the webhook server example, the package
 * imported by name). Rebuild it (scripts/build.js: tsc, then the CLI's bundle)
 * when it is missing or older than any file under `src/` (or the build
 * configuration), so that `npx vitest run` alone never tests stale code. When
 * `dist/` is fresh (as after `npm test`, which builds first) this costs one
 * walk of `src/`.
 */
import { build } from '../../scripts/build.js';
import { staleReason } from '../../scripts/build-if-stale.js';

export default async function ensureBuild(): Promise<void> {
  const reason = staleReason();
  if (reason === undefined) return;
  console.log(`[ensure-build] ${reason}: building dist/ (unchecked)`);
  try {
    // Unchecked (half the CPU): type errors are the typecheck's to report.
    await build({ check: false, quiet: true });
  } catch (cause) {
    const output = String((cause as { stdout?: string }).stdout ?? cause);
    throw new Error(`[ensure-build] building dist/ failed:\n${output}`);
  }
}
