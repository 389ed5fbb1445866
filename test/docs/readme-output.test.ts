/**
 * The guide's "Real output" (docs/guide.md, step 1) is what the built CLI
 * prints for `replay examples/events.ndjson`: every line of it appears in the
 * actual output, except `Elapsed:` (timing varies). Runs `dist/`, which the
 * global setup (test/support/ensure-build.ts) keeps up to date.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const readme = readFileSync(join(ROOT, 'docs/guide.md'), 'utf8');
const quickStart = readme.slice(readme.indexOf('## 1. Fold a log'));
const block = /Real output[^\n]*\n\n```text\n([\s\S]*?)```/.exec(quickStart)?.[1] ?? '';
const documented = block.split('\n').filter((line) => line.trim() !== '');

describe('README quick start', () => {
  it('finds the "Real output" block', () => {
    expect(readme).toContain('## 1. Fold a log');
    expect(documented.length).toBeGreaterThan(10);
    expect(documented[0]).toMatch(/^Log:\s+examples\/events\.ndjson$/);
  });

  it('every documented line but Elapsed is printed by `replay examples/events.ndjson`', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'dist', 'cli', 'main.js'), 'replay', 'examples/events.ndjson'],
      { cwd: ROOT },
    );
    const printed = new Set(stdout.split('\n'));
    const checked = documented.filter((line) => !line.startsWith('Elapsed:'));
    expect(checked).toHaveLength(documented.length - 1);
    expect(checked.filter((line) => !printed.has(line))).toEqual([]);
    // The timing line exists too, in the documented shape.
    expect(stdout).toMatch(/^Elapsed: +\d+(\.\d+)? s \(\d+ events\/s\)$/m);
  });
});
