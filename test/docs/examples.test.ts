/**
 * The example generator is deterministic and the committed examples are its
 * current output: `scripts/generate-example.js <dir>` run twice into temporary
 * directories gives byte-identical files, equal to those in `examples/`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'scripts', 'generate-example.js');
const FILES = ['events.ndjson', 'sign-request.json', 'README.md'] as const;

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Runs the generator into a fresh temporary directory and returns that directory. */
const generate = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'signfold-examples-'));
  dirs.push(dir);
  await promisify(execFile)(process.execPath, [SCRIPT, dir], { cwd: ROOT });
  return dir;
};

/** The first line where `actual` and `expected` differ, or `undefined` if they are equal. */
const firstDifference = (actual: Buffer, expected: Buffer) => {
  if (actual.equals(expected)) return undefined;
  const a = actual.toString('utf8').split('\n');
  const b = expected.toString('utf8').split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line === -1 ? a.length : line;
  return { line: at + 1, committed: a[at], generated: b[at] };
};

let first: string;
let second: string;
beforeAll(async () => {
  [first, second] = await Promise.all([generate(), generate()]);
});

describe('examples/', () => {
  it.each(FILES)('%s: the generator writes the same bytes on every run', async (file) => {
    const a = await readFile(join(first, file));
    const b = await readFile(join(second, file));
    expect(a.length).toBeGreaterThan(0);
    expect(a.equals(b)).toBe(true);
  });

  it.each(FILES)(
    '%s: the committed file is up to date (run `npm run examples:generate`)',
    async (file) => {
      const generated = await readFile(join(first, file));
      const committed = await readFile(join(ROOT, 'examples', file));
      // On a difference, show the first differing line rather than two opaque (large) buffers.
      expect(firstDifference(committed, generated)).toBeUndefined();
      expect(generated.equals(committed)).toBe(true);
    },
  );
});
