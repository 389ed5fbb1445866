/**
 * The README stays short (at most 150 lines, with its two set-up commands),
 * and its "From webhooks to state" example runs as a reader copies it: taken
 * from the README, type-checked under --strict against the built package, run
 * in a child process on a fresh log, sent a signed delivery over real HTTP,
 * and then asked the status the application reads.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { transform } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { encodeEvent } from '../../src/core/events/encode-event.js';
import { signWebhookBody } from '../../src/webhooks/sign-payload.js';
import { ROOT } from '../cli/cli-helpers.js';
import { withBuiltImports } from '../support/built-imports.js';
import { strictTypeErrors } from '../support/strict-type-errors.js';

// esbuild's service is a child process: it must end with the file (test/support/process-fixture.ts).
afterAll(async () => (await import('esbuild')).stop());

const SECRET = 'readme secret';
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const readme = await readFile(join(ROOT, 'README.md'), 'utf8');

/**
 * The example, then what the test adds: report the port, and answer each line
 * of stdin (a sign request id) with the status the application would read.
 */
const exampleAndProbe = (): string => {
  const after = readme.slice(readme.indexOf('## From webhooks to state'));
  const code = /```ts\n([\s\S]*?)```/.exec(after)?.[1] ?? '';
  return `${code.replace('8080', '0')}
const report = () => console.log(JSON.stringify(server.address()));
if (server.listening) report();
else server.once('listening', report);
process.stdin.setEncoding('utf8');
process.stdin.on('data', (line: string) => console.log(JSON.stringify({ status: statusOf(Number(line)) ?? null })));
`;
};

/** The next line the child prints, as JSON. */
const nextLine = (child: ChildProcess): Promise<unknown> =>
  new Promise((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString())));
    child.once('exit', () => reject(new Error('the example exited')));
  });

describe('the README', () => {
  it('has at most 150 lines, and its two set-up commands', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(151);
    expect(readme).toContain('npm ci && npm run replay-example');
    expect(readme).toContain('npm ci && npm test');
  });

  it('"From webhooks to state" type-checks, stores a signed delivery and reads it back', async () => {
    await mkdir(join(ROOT, 'node_modules/.cache'), { recursive: true });
    const dir = await mkdtemp(join(ROOT, 'node_modules/.cache/signfold-readme-'));
    dirs.push(dir);
    const local = withBuiltImports(exampleAndProbe(), 'path');
    await writeFile(join(dir, 'example.mts'), local);
    expect(strictTypeErrors(join(dir, 'example.mts'), { dom: true })).toEqual([]);
    await writeFile(
      join(dir, 'example.mjs'),
      (await transform(local, { loader: 'ts', format: 'esm' })).code,
    );
    const child = spawn(process.execPath, [join(dir, 'example.mjs')], {
      cwd: dir,
      env: { ...process.env, WEBHOOK_SECRET: SECRET },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.push(child);
    try {
      const { port } = (await nextLine(child)) as { port: number };
      const body = JSON.stringify(
        encodeEvent(buildEvent('sign-request-sent', { signRequestId: 42 })),
      );
      const signature = signWebhookBody(new TextEncoder().encode(body), SECRET);
      const answer = await fetch(`http://127.0.0.1:${port}/webhooks`, {
        method: 'POST',
        body,
        headers: { 'x-signature': signature, 'x-delivery-id': 'd-1' },
      });
      expect([answer.status, await answer.json()]).toEqual([
        200,
        { position: 1, duplicate: false, outcome: 'applied' },
      ]);
      const asked = nextLine(child);
      child.stdin?.write('42\n');
      expect(await asked).toEqual({ status: 'sent' });
      const unsigned = await fetch(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', body });
      expect(unsigned.status).toBe(401);
      await unsigned.arrayBuffer();
      expect(await readFile(join(dir, 'events.ndjson'), 'utf8')).toContain('"deliveryId":"d-1"');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
