/**
 * The README's offline pipeline runs as shown: `serve` on a fresh log,
 * `emulate` into it, `react` with the example reactor, then `report`. Each
 * command is read from the README; the test only moves the port (serve's
 * 8080 becomes a free one), plays 30 stories where the README plays 200 (the
 * suite's time), and runs them in a scratch directory.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ROOT, removeTempDirs, runBinary, tempDir } from '../cli/cli-helpers.js';
import { killLeftoverServes, startServe } from '../cli/serve/serve-process.js';

afterEach(killLeftoverServes);
afterAll(removeTempDirs);

const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## See it work, offline'));
const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
/** The CLI's arguments on each `node dist/cli/main.js …` line, comments dropped. */
const commands = block
  .split('\n')
  .filter((line) => line.startsWith('node dist/cli/main.js '))
  .map((line) => line.replace(/#.*$/, '').trim().split(/\s+/).slice(2));
const secret = /export WEBHOOK_SECRET=(\S+)/.exec(block)?.[1] ?? '';

describe("the README's offline pipeline", () => {
  it('shows serve, emulate, react and report, with the secret they share', () => {
    expect(commands.map((args) => args[0])).toEqual(['serve', 'emulate', 'react', 'report']);
    expect(secret).not.toBe('');
  });

  it('delivers every story into serve, reacts to what arrived, and reports it', async () => {
    const dir = await tempDir();
    const env = { ...process.env, WEBHOOK_SECRET: secret, COMPLETIONS_FILE: join(dir, 'done.txt') };
    const inDir = (args: readonly string[]) =>
      args.map((arg) => (arg.endsWith('.ndjson') || arg.endsWith('.html') ? join(dir, arg) : arg));
    const [serveArgs = [], emulateArgs = [], reactArgs = [], reportArgs = []] = commands;
    const serve = await startServe(inDir(serveArgs.slice(1)), env);
    const emulate = await runBinary(
      inDir(emulateArgs)
        .map((arg) => arg.replace('http://127.0.0.1:8080', serve.url))
        .map((arg, i, all) => (all[i - 1] === '--requests' ? '30' : arg)),
      ROOT,
      env,
    );
    expect(emulate.code, emulate.stderr).toBe(0);
    expect((await serve.stop()).code).toBe(0);
    const react = await runBinary(inDir(reactArgs), ROOT, env);
    expect(react.code, react.stderr).toBe(0);
    const done = (await readFile(join(dir, 'done.txt'), 'utf8')).trim().split('\n');
    expect(done.length).toBeGreaterThan(3);
    for (const line of done) expect(line).toMatch(/^\d+ (completed|declined) \S/);
    const report = await runBinary(inDir(reportArgs), ROOT, env);
    expect(report.code, report.stderr).toBe(0);
    expect(await readFile(join(dir, 'report.html'), 'utf8')).toContain('<html');
  });
});
