/**
 * The transcript of `signfold report examples/events.ndjson --out report.html`
 * in docs/report.md and docs/cli.md is what the built CLI prints: the same
 * line, with the page's size within 10 % of the real one (the page grows and
 * shrinks with the report's features, and the docs once said 47 KiB of a
 * 230 KiB page). The page does not depend on where it is written, so it is
 * written to a temp dir and the line's path put back. Runs `dist/`, which the
 * global setup keeps up to date.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';

const COMMAND = '$ signfold report examples/events.ndjson --out report.html';
const LINE = /^examples\/events\.ndjson: report written to (\S+) \((\d+) records, (\d+) KiB\)$/;

/** The line after the command in the first ```text block of `doc` that shows it. */
const documentedLine = (doc: string): string => {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  const block = [...text.matchAll(/```text\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? '')
    .find((body) => body.includes('report written to'));
  const lines = (block ?? '').split('\n');
  const at = lines.findIndex((line) => line.includes('report written to'));
  // docs/cli.md shows the command (`$ …`) above the line; docs/report.md shows it in a sh block.
  if (doc === 'docs/cli.md') expect(lines[at - 1], doc).toBe(COMMAND);
  return lines[at] ?? '';
};

let printed = '';
let bytes = 0;

beforeAll(async () => {
  const out = join(await tempDir(), 'report.html');
  const run = await runCli(['report', 'examples/events.ndjson', '--out', out]);
  expect(run.code, run.stderr).toBe(0);
  printed = run.stdout.trimEnd().replace(out, 'report.html');
  bytes = statSync(out).size;
});
afterAll(removeTempDirs);

describe('the report transcript in the docs', () => {
  it('is the shape the CLI prints, and the CLI prints the page size in KiB', () => {
    const [, , , kib] = LINE.exec(printed) ?? [];
    expect(printed).toMatch(LINE);
    expect(Number(kib)).toBe(Math.round(bytes / 1024));
  });

  for (const doc of ['docs/report.md', 'docs/cli.md']) {
    it(`${doc}: the same file and records, and the size within 10 %`, () => {
      const documented = LINE.exec(documentedLine(doc));
      const actual = LINE.exec(printed);
      expect(documented, doc).not.toBeNull();
      expect(documented?.slice(1, 3)).toEqual(actual?.slice(1, 3));
      const kib = Number(documented?.[3]);
      expect(Math.abs(kib * 1024 - bytes) / bytes, `${kib} KiB vs ${bytes} bytes`).toBeLessThan(
        0.1,
      );
    });
  }
});
