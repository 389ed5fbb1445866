/**
 * prom-client is a dependency of `signfold serve` alone: importing the
 * package (its main entry, signfold/webhooks) or running another command
 * never loads it, and a fresh process shows it (prom-client is CommonJS, so
 * whatever loads it leaves it in the CommonJS module cache).
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, removeTempDirs, tempDir } from '../cli-helpers.js';
import { secretEnv } from './serve-process.js';

// Loaded with --import before the program: at its exit, it says whether prom-client was loaded.
const PROBE = `
  import { createRequire } from 'node:module';
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => {
    const loaded = Object.keys(cache).some((path) => path.includes('/node_modules/prom-client/'));
    process.stderr.write('\\nprom-client loaded: ' + loaded + '\\n');
  });
`;

let dir: string;
let probe: string;
beforeAll(async () => {
  dir = await tempDir();
  probe = join(dir, 'probe.mjs');
  await writeFile(probe, PROBE);
});
afterAll(removeTempDirs);

/**
 * Runs `node --import PROBE ...args` in a fresh process; once it printed `until` (if given) it is
 * sent SIGTERM. Resolves to whether it loaded prom-client.
 */
const loadsPromClient = (args: readonly string[], until?: string): Promise<boolean> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', pathToFileURL(probe).href, ...args], {
      cwd: ROOT,
      env: secretEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (until !== undefined && stdout.includes(until)) child.kill('SIGTERM');
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', () => {
      const verdict = /prom-client loaded: (true|false)\n/.exec(stderr)?.[1];
      if (verdict === undefined) reject(new Error(`the probe said nothing:\n${stderr}`));
      else resolve(verdict === 'true');
    });
  });

const dist = (path: string): string => pathToFileURL(join(ROOT, 'dist', path)).href;

describe('prom-client is loaded by serve only', () => {
  it('is not loaded by import "signfold" or signfold/webhooks', async () => {
    for (const entry of ['index.js', 'webhooks/index.js']) {
      const code = `await import(${JSON.stringify(dist(entry))});`;
      expect(await loadsPromClient(['--input-type=module', '-e', code]), entry).toBe(false);
    }
  });

  it('is not loaded by the executable for its help, serve’s help, or serve refusing a flag', async () => {
    expect(await loadsPromClient([CLI, '--help'])).toBe(false);
    expect(await loadsPromClient([CLI, 'serve', '--help'])).toBe(false);
    expect(
      await loadsPromClient([
        CLI,
        'serve',
        '--database',
        'postgres://127.0.0.1:1/x',
        '--reactors',
        'r.js',
      ]),
    ).toBe(false);
  });

  it('is loaded (and the probe sees it) once serve runs with its metrics', async () => {
    const log = join(dir, 'events.ndjson');
    expect(await loadsPromClient([CLI, 'serve', '--log', log, '--port', '0'], 'listening on')).toBe(
      true,
    );
  });
});
