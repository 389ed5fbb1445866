import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, test, vi } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const usage = readme.slice(readme.indexOf('## Usage'));
const code = /```ts\n([\s\S]*?)```/.exec(usage)?.[1] ?? '';
const printed = /It prints:\n\n```text\n([\s\S]*?)```/.exec(usage)?.[1] ?? '';
const folder = mkdtempSync(join(tmpdir(), 'signfold-readme-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

test('the README usage example runs and prints what the README says', async () => {
  expect(code.split('\n').length).toBeGreaterThan(10);
  const file = join(folder, 'usage.ts');
  const library = pathToFileURL(join(root, 'src', 'index.ts')).href;
  writeFileSync(file, code.replaceAll("from 'signfold'", `from '${library}'`));
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    for (const a of args) lines.push(typeof a === 'string' ? a : JSON.stringify(a));
  });
  try {
    await import(pathToFileURL(file).href);
  } finally {
    log.mockRestore();
  }
  const expected = printed.trim().split('\n');
  // The conflict list is printed by console.log as an array of one element: the last line.
  const conflicts = lines.pop() ?? '[]';
  const listed = expected.slice(-3);
  expect(lines).toEqual(expected.slice(0, -3));
  expect(JSON.parse(conflicts)).toEqual([listed[1]?.trim().slice(1, -1)]);
  expect(listed[0]).toBe('[');
  expect(listed[2]).toBe(']');
});

test('the README prints a rejected body as a whole without an empty path before it', () => {
  // `${error.path}: ${error.message}` printed `rejected: : invalid JSON…` for root errors.
  expect(code).toContain('formatDecodeError(error)');
  const rejected = printed.split('\n').filter((line) => /^#\d+ rejected: /.test(line));
  expect(rejected.some((line) => /^#\d+ rejected: invalid JSON: /.test(line))).toBe(true);
  for (const line of rejected) expect(line).not.toMatch(/rejected: :/);
});
