import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/run.js';
import {
  bare,
  envelope,
  MIXED_LOG,
  removeTempDirs,
  requestEvent,
  runCli,
  tempDir,
  writeFixture,
  writeStuckLog,
} from '../cli-helpers.js';

afterAll(removeTempDirs);

let log: string;
let dir: string;
beforeAll(async () => {
  log = await writeFixture('events.ndjson', MIXED_LOG);
  dir = await tempDir();
});

const expectUsageError = async (args: string[], message: RegExp): Promise<void> => {
  const result = await runCli(args);
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr.trimEnd()).toMatch(message);
};

describe('signfold report', () => {
  it('writes the page and says where; the same log gives the same bytes', async () => {
    const first = join(dir, 'first.html');
    const second = join(dir, 'second.html');
    const result = await runCli(['report', log, '--out', first]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^.*events\.ndjson: report written to .*first\.html \(12 records, \d+ KiB\)\n$/,
    );
    expect((await runCli(['report', log, '-o', second])).code).toBe(0);
    const html = await readFile(first, 'utf8');
    expect(await readFile(second, 'utf8')).toBe(html);
    expect(html).toContain('data-metric="stats.invalid" data-value="1"');
    expect(html).toContain('data-metric="stats.conflicts" data-value="1"');
  });

  it('measures stuck requests against the latest receivedAt with --stuck-after', async () => {
    // Request 1 sent on day 0, still open; another event ten days later.
    const path = await writeStuckLog('stuck.ndjson');
    const out = join(dir, 'stuck.html');
    expect((await runCli(['report', path, '--out', out, '--stuck-after', '9d'])).code).toBe(0);
    const stuck = await readFile(out, 'utf8');
    expect(stuck).toContain('data-metric="stuck.total" data-value="1"');
    expect(stuck).toContain(`signfold inspect ${path} --sign-request 1`);
    expect((await runCli(['report', path, '--out', out, '--stuck-after', '10d'])).code).toBe(0);
    expect(await readFile(out, 'utf8')).toContain('data-metric="stuck.total" data-value="0"');
  });

  it('reports a log of bare lines without timings', async () => {
    const path = await writeFixture('bare.ndjson', [
      bare(requestEvent('sign-request-sent', 1, true)),
      bare(requestEvent('sign-request-completed', 1, true)),
    ]);
    const out = join(dir, 'bare.html');
    expect((await runCli(['report', path, '--out', out])).code).toBe(0);
    const html = await readFile(out, 'utf8');
    expect(html).toContain('timings need envelope lines');
    expect(html).not.toContain('id="chart-activity"');
  });

  it('draws progress on a terminal only', async () => {
    const lines = Array.from({ length: 50 }, (_, i) =>
      envelope(i + 1, requestEvent('sign-request-sent', 1000 + i, true)),
    );
    const path = await writeFixture('many.ndjson', lines);
    const drawn: string[] = [];
    let time = 0;
    const io = {
      stdout: { write: () => true },
      stderr: { isTTY: true, write: (text: string) => drawn.push(text) },
      now: () => {
        time += 300;
        return time;
      },
    };
    expect(await run(['report', path, '--out', join(dir, 'tty.html')], io)).toBe(0);
    expect(drawn.join('')).toContain('replaying');
    const quiet: string[] = [];
    const pipe = { ...io, stderr: { isTTY: false, write: (text: string) => quiet.push(text) } };
    expect(await run(['report', path, '--out', join(dir, 'pipe.html')], pipe)).toBe(0);
    expect(quiet).toEqual([]);
  });

  it.each([
    ['a missing --out', ['report', 'x.ndjson'], /missing --out FILE.*report --help/],
    ['a missing LOG', ['report', '--out', 'r.html'], /missing LOG/],
    [
      'a malformed --stuck-after',
      ['report', 'x.ndjson', '--out', 'r.html', '--stuck-after', '7 days'],
      /--stuck-after must be a positive duration such as 7d, 36h, 90m, 45s or 2w \(got '7 days'\)/,
    ],
    ['a zero --stuck-after', ['report', 'x', '--out', 'r', '--stuck-after', '0d'], /got '0d'/],
    ['an unknown flag', ['report', 'x', '--out', 'r', '--since', 'u'], /unknown option '--since'/],
  ])('refuses %s (exit 2, one line)', async (_, args, message) => {
    await expectUsageError(args, message);
  });

  it('refuses a missing log, and an --out that is the log itself', async () => {
    await expectUsageError(
      ['report', join(dir, 'nope.ndjson'), '--out', join(dir, 'r.html')],
      /no such file/,
    );
    const before = await readFile(log, 'utf8');
    await expectUsageError(['report', log, '--out', log], /is the same file as the log/);
    expect(await readFile(log, 'utf8')).toBe(before);
  });

  it('fails in one line when the page cannot be written, leaving no temporary file', async () => {
    const blocker = join(dir, 'not-a-dir');
    await writeFile(blocker, '');
    const result = await runCli(['report', log, '--out', join(blocker, 'r.html')]);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd()).toMatch(/^signfold: cannot write report .*r\.html: ENOTDIR$/);
    await expect(stat(join(blocker, 'r.html'))).rejects.toThrow();
  });
});
