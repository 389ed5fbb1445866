/**
 * The node:http and Hono snippets of docs/webhooks.md run as shown: each is
 * taken from the page, given a memory log as `log` and a string as `secret`,
 * type-checked against the built package, run in a child process, and sent
 * a signed delivery, an unsigned one and a GET over real HTTP.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { transform } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/webhooks/sign-payload.js';
import { ROOT } from '../cli/cli-helpers.js';
import { withBuiltImports } from '../support/built-imports.js';
import { strictTypeErrors } from '../support/strict-type-errors.js';

// esbuild's service is a child process: it must end with the file (test/support/process-fixture.ts).
afterAll(async () => (await import('esbuild')).stop());

const SECRET = 'docs secret';
/** What the page leaves to the reader: a log and a secret. */
const PREAMBLE = `import { createMemoryEventLog } from 'signfold/file';
const log = createMemoryEventLog();
const secret = ${JSON.stringify(SECRET)};
`;
/** Prints where the snippet's `server` listens, once it does. */
const REPORT_PORT = `
const report = () => console.log(JSON.stringify(server.address()));
if (server.listening) report();
else server.once('listening', report);
`;

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The first ```ts block after the heading `### title`. */
const snippet = async (title: string): Promise<string> => {
  const page = await readFile(join(ROOT, 'docs/webhooks.md'), 'utf8');
  const after = page.slice(page.indexOf(`\n### ${title}\n`));
  const code = /```ts\n([\s\S]*?)```/.exec(after)?.[1];
  if (code === undefined) throw new Error(`no ts block under ### ${title}`);
  return `${PREAMBLE}${code.replace('8080', '0')}${REPORT_PORT}`;
};

const start = async (code: string) => {
  // Inside the project, so that hono and @types/node resolve.
  await mkdir(join(ROOT, 'node_modules/.cache'), { recursive: true });
  const dir = await mkdtemp(join(ROOT, 'node_modules/.cache/signfold-docs-'));
  dirs.push(dir);
  const local = withBuiltImports(code, 'path');
  const checked = join(dir, 'snippet.mts');
  await writeFile(checked, local);
  const errors = strictTypeErrors(checked, { dom: true });
  const js = (await transform(local, { loader: 'ts', format: 'esm' })).code;
  await writeFile(join(dir, 'snippet.mjs'), js);
  const child = spawn(process.execPath, [join(dir, 'snippet.mjs')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) =>
      resolve((JSON.parse(chunk.toString()) as { port: number }).port),
    );
    child.once('exit', () => reject(new Error(`snippet exited: ${stderr}`)));
  });
  return { errors, url: `http://127.0.0.1:${port}/webhooks`, child };
};

describe.each(['node:http', 'Hono'])('the %s snippet of docs/webhooks.md', (title) => {
  it('type-checks, runs, stores a signed delivery and refuses an unsigned one and a GET', async () => {
    const { errors, url, child } = await start(await snippet(title));
    try {
      expect(errors).toEqual([]);
      const body = '{"type":"template-deleted","companyId":1,"templateId":2}';
      const signature = signWebhookBody(new TextEncoder().encode(body), SECRET);
      const stored = await fetch(url, {
        method: 'POST',
        body,
        headers: { 'x-signature': signature },
      });
      expect([stored.status, await stored.json()]).toEqual([
        200,
        { position: 1, duplicate: false },
      ]);
      const unsigned = await fetch(url, { method: 'POST', body });
      expect(unsigned.status).toBe(401);
      await unsigned.arrayBuffer();
      const get = await fetch(url);
      expect(get.status).toBe(405);
      await get.arrayBuffer();
    } finally {
      child.kill('SIGKILL');
    }
  });
});
