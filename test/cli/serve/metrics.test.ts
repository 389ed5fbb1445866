/**
 * prom-client is a dependency of `signfold serve` alone: importing the
 * package (its main entry, signfold/webhooks) or running another command
 * never loads it, and a fresh process shows it (prom-client is CommonJS, so
 * whatever loads it leaves it in the CommonJS module cache).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli-helpers.js';

/** Runs `code` as an ES module in a fresh node and returns whether it loaded prom-client. */
const loadsPromClient = (code: string): boolean => {
  const probe = `
    import { createRequire } from 'node:module';
    ${code}
    const cache = createRequire(import.meta.url).cache;
    process.stdout.write(String(Object.keys(cache).some((path) => path.includes('/node_modules/prom-client/'))));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return out.trim() === 'true';
};

const dist = (path: string): string => pathToFileURL(join(ROOT, 'dist', path)).href;

describe('prom-client is loaded by serve only', () => {
  it('is not loaded by import "signfold", signfold/webhooks or the CLI entry', () => {
    expect(loadsPromClient(`await import(${JSON.stringify(dist('index.js'))});`)).toBe(false);
    expect(loadsPromClient(`await import(${JSON.stringify(dist('webhooks/index.js'))});`)).toBe(
      false,
    );
    // The CLI dispatcher, as main.ts loads it: its help, serve's help, serve refusing a flag.
    const run = `const { run } = await import(${JSON.stringify(dist('cli/run.js'))});
      const io = { stdout: { write: () => true }, stderr: { write: () => true }, now: () => 0 };
      await run(['--help'], io);
      await run(['serve', '--help'], io);
      await run(['serve', '--database', 'postgres://127.0.0.1:1/x', '--reactors', 'r.js'], io);`;
    expect(loadsPromClient(run)).toBe(false);
  });

  it('is loaded (and this probe sees it) once serve creates its metrics', () => {
    const metrics = `const { createServeMetrics } = await import(${JSON.stringify(dist('cli/serve/metrics.js'))});
      await createServeMetrics();`;
    expect(loadsPromClient(metrics)).toBe(true);
  });
});
