/**
 * A command that loads `pg` does not load Node's HTTP client with it (its Cloudflare check
 * would, on Node 20: see src/cli/import-pg.ts), and leaves no `navigator` behind.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT } from './cli-helpers.js';

const REPORT = join(ROOT, 'test/fixtures/runtime/report-undici.cjs');

/** Runs node with the report preloaded on `args`; the report's line. */
const runtimeAfter = (args: readonly string[]): Promise<string> =>
  new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--require', REPORT, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', fail);
    child.on('close', () => done(stderr.match(/^runtime: .*$/m)?.[0] ?? stderr));
  });

describe('loading pg', () => {
  it.skipIf(Number(process.versions.node.split('.')[0]) > 20)(
    'as pg loads itself on Node 20, loads the HTTP client: what the CLI avoids',
    async () => {
      expect(await runtimeAfter(['-e', "require('pg')"])).toBe(
        'runtime: undici loaded, navigator absent',
      );
    },
  );

  it('a pg command loads pg without the HTTP client and leaves no navigator', async () => {
    // Nothing listens on port 1: the command loads pg, opens its pool, and fails to connect.
    const line = await runtimeAfter([
      CLI,
      'pg',
      'status',
      '--database',
      'postgres://signfold@127.0.0.1:1/none',
      '--connect-timeout',
      '1',
    ]);
    const expected =
      Number(process.versions.node.split('.')[0]) > 20
        ? /^runtime: undici (not )?loaded, navigator defined$/
        : /^runtime: undici not loaded, navigator absent$/;
    expect(line).toMatch(expected);
  });
});
