/**
 * The reconcile examples compile as a user writes them and run: the one of
 * docs/engine.md ("Repair from the API") and the `@example` of `reconcile`
 * both give the fetch function's `signal` to `fetch(url, { signal })`, which
 * must type-check under `--strict` (with `@types/node`, and with the DOM
 * library), against the built declarations. The page's example then runs in
 * a child process against a local stand-in for the service's API and
 * repairs the request it asks about.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../cli/cli-helpers.js';
import { withBuiltImports } from '../support/built-imports.js';
import { strictTypeErrors } from '../support/strict-type-errors.js';

// esbuild's service is a child process: it must end with the file (test/support/process-fixture.ts).
afterAll(async () => (await import('esbuild')).stop());

/** The first ```ts block after the heading `## title` of docs/engine.md. */
const pageExample = (title: string): string => {
  const page = readFileSync(join(ROOT, 'docs/engine.md'), 'utf8');
  const at = page.indexOf(`\n## ${title}\n`);
  if (at === -1) throw new Error(`docs/engine.md has no heading ## ${title}`);
  const code = /```ts\n([\s\S]*?)```/.exec(page.slice(at))?.[1];
  if (code === undefined) throw new Error(`no ts block under ## ${title}`);
  return code;
};

/** The `@example` of `reconcile` in its source. */
const sourceExample = (): string => {
  const text = readFileSync(join(ROOT, 'src/engine/reconcile.ts'), 'utf8');
  const match =
    /@example\n \* ```ts\n((?: \*.*\n)*?) \* ```\n(?: \*.*\n)* \*\/\nexport const reconcile /.exec(
      text,
    );
  if (match === null) throw new Error('reconcile has no @example');
  return (match[1] ?? '').replace(/^ \* ?/gm, '');
};

const PAGE = pageExample('Repair from the API');
const SOURCE = sourceExample();

const dirs: string[] = [];
let server: Server | undefined;
afterAll(async () => {
  await new Promise((resolve) =>
    server === undefined ? resolve(undefined) : server.close(resolve),
  );
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A scratch directory inside the project, so that `@types/node` resolves from it. */
const scratch = async (): Promise<string> => {
  await mkdir(join(ROOT, 'node_modules/.cache'), { recursive: true });
  const dir = await mkdtemp(join(ROOT, 'node_modules/.cache/signfold-reconcile-doc-'));
  dirs.push(dir);
  return dir;
};

/** The type errors of `code` as a file of its own, with the DOM library or without. */
const typeErrors = async (code: string, dom: boolean): Promise<string[]> => {
  const file = join(await scratch(), 'example.mts');
  await writeFile(file, withBuiltImports(code, 'path'));
  return strictTypeErrors(file, { dom });
};

describe('the reconcile examples', () => {
  it('give the signal to fetch, as a user would', () => {
    for (const code of [PAGE, SOURCE]) {
      expect(code).toMatch(/fetch: async \(id, \{ signal \}\) =>/);
      expect(code).toMatch(/await fetch\(`[^`]*`, \{ signal \}\)/);
    }
  });

  it.each([
    ['docs/engine.md', PAGE],
    ['the @example of reconcile', SOURCE],
  ])(
    '%s compiles under --strict with @types/node and with the DOM library',
    async (_, code) => {
      expect(await typeErrors(code, false)).toEqual([]);
      expect(await typeErrors(code, true)).toEqual([]);
    },
    120_000,
  );

  it('would fail to compile with a signal fetch does not take (the check can fail)', async () => {
    const narrowed = PAGE.replace(
      '{ signal })).json()',
      '{ signal: signal as { readonly aborted: boolean } })).json()',
    );
    expect(narrowed).not.toBe(PAGE);
    expect((await typeErrors(narrowed, false)).join('\n')).toMatch(/AbortSignal/);
  }, 120_000);
});

describe('the example of docs/engine.md, run', () => {
  const asked: string[] = [];
  let base = '';
  beforeAll(async () => {
    const representation = JSON.parse(
      await readFile(join(ROOT, 'examples/sign-request.json'), 'utf8'),
    ) as Record<string, unknown>;
    server = createServer((request, response) => {
      const id = /^\/sign-requests\/(\d+)$/.exec(request.url ?? '')?.[1];
      asked.push(request.url ?? '');
      if (id === undefined) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ...representation, id: Number(id) }));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  it('asks the service for the request and repairs it', async () => {
    expect(PAGE).toContain('https://api.example.test');
    const code = withBuiltImports(PAGE.replaceAll('https://api.example.test', base));
    const dir = await scratch();
    const file = join(dir, 'example.mjs');
    await writeFile(file, (await transform(code, { loader: 'ts', format: 'esm' })).code);
    const run = await promisify(execFile)(process.execPath, [file], { cwd: dir, timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('1000 repaired\n');
    expect(asked).toEqual(['/sign-requests/1000']);
  }, 90_000);
});
