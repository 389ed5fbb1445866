/**
 * The Hono and node:http examples of docs/http.md run as shown: each is
 * taken from the page, given a file log as `logPath`, a `secret` and a read
 * `token`, type-checked (`--strict`) against the built package, run in a
 * child process, and asked over real HTTP for the token's company's request
 * (200), another company's (404) and one without a token (401).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { transform } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../cli/cli-helpers.js';
import { withBuiltImports } from '../support/built-imports.js';
import { strictTypeErrors } from '../support/strict-type-errors.js';

// esbuild's service is a child process: it must end with the file (test/support/process-fixture.ts).
afterAll(async () => (await import('esbuild')).stop());

const TOKEN = 'docs-read-token-0123456789abcdef';
const EVENTS = [
  '{"type":"sign-request-sent","companyId":1,"signRequestId":101,"signRequestName":"NDA","templateId":100,"templateName":"NDA","senderId":20,"senderName":"Sam","ownerId":10,"ownerName":"Olive"}',
  '{"type":"sign-request-sent","companyId":2,"signRequestId":201,"signRequestName":"NDA","templateId":100,"templateName":"NDA","senderId":20,"senderName":"Sam","ownerId":10,"ownerName":"Olive"}',
];

/** What the page leaves to the reader: a log with two companies' requests, a secret, a token. */
const preamble = (logPath: string): string => `import { writeFileSync } from 'node:fs';
const logPath = ${JSON.stringify(logPath)};
writeFileSync(logPath, ${JSON.stringify(`${EVENTS.join('\n')}\n`)});
const secret = 'docs secret';
const token = ${JSON.stringify(TOKEN)};
`;
/** Prints where the example's `server` listens, once it does. */
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
const example = async (title: string): Promise<string> => {
  const page = await readFile(join(ROOT, 'docs/http.md'), 'utf8');
  const after = page.slice(page.indexOf(`\n### ${title}\n`));
  const code = /```ts\n([\s\S]*?)```/.exec(after)?.[1];
  if (code === undefined) throw new Error(`no ts block under ### ${title}`);
  return code.replace('8080', '0');
};

const start = async (code: string) => {
  // Inside the project, so that hono and @types/node resolve.
  await mkdir(join(ROOT, 'node_modules/.cache'), { recursive: true });
  const dir = await mkdtemp(join(ROOT, 'node_modules/.cache/signfold-http-doc-'));
  dirs.push(dir);
  const local = withBuiltImports(
    `${preamble(join(dir, 'events.ndjson'))}${code}${REPORT_PORT}`,
    'path',
  );
  const checked = join(dir, 'example.mts');
  await writeFile(checked, local);
  const errors = strictTypeErrors(checked, { dom: false });
  const js = (await transform(local, { loader: 'ts', format: 'esm' })).code;
  await writeFile(join(dir, 'example.mjs'), js);
  const child = spawn(process.execPath, [join(dir, 'example.mjs')], {
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
    child.once('exit', () => reject(new Error(`example exited: ${stderr}`)));
  });
  return { errors, url: `http://127.0.0.1:${port}`, child };
};

describe.each(['Hono', 'node:http'])('the %s example of docs/http.md', (title) => {
  it('type-checks under --strict, runs, and answers 200, 404 and 401', async () => {
    const { errors, url, child } = await start(await example(title));
    try {
      expect(errors).toEqual([]);
      const auth = { authorization: `Bearer ${TOKEN}` };
      const own = await fetch(`${url}/api/sign-requests/101`, { headers: auth });
      expect(own.status).toBe(200);
      expect(await own.json()).toMatchObject({ signRequest: { id: 101, status: 'sent' } });
      const other = await fetch(`${url}/api/sign-requests/201`, { headers: auth });
      expect([other.status, await other.text()]).toEqual([404, '{"error":"not found"}\n']);
      const none = await fetch(`${url}/api/sign-requests/101`);
      expect(none.status).toBe(401);
      await none.arrayBuffer();
    } finally {
      child.kill('SIGKILL');
    }
  });
});
