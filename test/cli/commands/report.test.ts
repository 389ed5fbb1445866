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
  it('writes the page and says where; the same log and --now give the same bytes', async () => {
    const first = join(dir, 'first.html');
    const second = join(dir, 'second.html');
    const now = ['--now', '2025-01-02T00:00:00Z'];
    const result = await runCli(['report', log, '--out', first, ...now]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^.*events\.ndjson: report written to .*first\.html \(12 records, \d+ KiB\)\n$/,
    );
    expect((await runCli(['report', log, '-o', second, ...now])).code).toBe(0);
    const html = await readFile(first, 'utf8');
    expect(await readFile(second, 'utf8')).toBe(html);
    expect(html).toContain('data-metric="stats.invalid" data-value="1"');
    expect(html).toContain('data-metric="stats.conflicts" data-value="1"');
  });

  it('measures stuck requests against --now with --stuck-after', async () => {
    // Request 1 sent on day 0, still open; another event ten days later, "now" two days after it.
    const path = await writeStuckLog('stuck.ndjson');
    const out = join(dir, 'stuck.html');
    const now = ['--now', '2025-01-13T00:00:00Z'];
    const at = (stuckAfter: string) =>
      runCli(['report', path, '--out', out, '--stuck-after', stuckAfter, ...now]);
    expect((await at('11d')).code).toBe(0);
    const stuck = await readFile(out, 'utf8');
    expect(stuck).toContain('data-metric="stuck.total" data-value="1"');
    expect(stuck).toContain(`signfold inspect ${path} --sign-request 1`);
    // 12 days old at --now: stuck after 11 days, not after 12 (strictly longer is).
    expect((await at('12d')).code).toBe(0);
    expect(await readFile(out, 'utf8')).toContain('data-metric="stuck.total" data-value="0"');
  });

  it('measures against the clock without --now: a log that stopped receiving keeps ageing', async () => {
    const path = await writeStuckLog('stopped.ndjson');
    const out = join(dir, 'stopped.html');
    const before = Date.now();
    expect((await runCli(['report', path, '--out', out, '--stuck-after', '1000d'])).code).toBe(0);
    const html = await readFile(out, 'utf8');
    const asOf = /data-figure="summary\.asOf">([^<]+)</.exec(html)?.[1] ?? '';
    // The page's "now" is to the minute: between the minute the run began and a minute after.
    const shown = Date.parse(`${asOf.replace(' ', 'T')}:00Z`);
    expect(shown).toBeGreaterThanOrEqual(Math.floor(before / 60_000) * 60_000);
    expect(shown).toBeLessThanOrEqual(Date.now());
    expect(html).toContain('when this report was made');
    // The log's last delivery (2025-01-11) is long before the clock: the banner says so.
    expect(html).toMatch(/<p class="banner" id="stale-banner" role="status"[^>]*>No delivery for /);
  });

  it('warns only when the last delivery is older than --stale-after at --now', async () => {
    const path = await writeStuckLog('quiet.ndjson');
    const out = join(dir, 'quiet.html');
    // The last delivery is 2025-01-11T00:00Z: 2 hours before this "now".
    const page = async (flags: string[]) => {
      const run = await runCli([
        'report',
        path,
        '--out',
        out,
        '--now',
        '2025-01-11T02:00:00Z',
        ...flags,
      ]);
      expect(run.code, run.stderr).toBe(0);
      return await readFile(out, 'utf8');
    };
    const warned = await page([]);
    expect(warned).toContain(
      'No delivery for 2.0 h: the last one arrived at <time>2025-01-11 00:00</time> UTC',
    );
    expect(await page(['--stale-after', '2h'])).not.toContain('id="stale-banner"');
    expect(await page(['--stale-after', '119m'])).toContain('id="stale-banner"');
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
    [
      'a --now that is not an ISO instant',
      ['report', 'x', '--out', 'r', '--now', 'now'],
      /--now must be an ISO 8601 time such as 2025-10-01 or 2025-10-01T08:00:00Z \(got 'now'\)/,
    ],
    [
      'a --now without a zone',
      ['report', 'x', '--out', 'r', '--now', '2025-10-01T08:00'],
      /--now must be an ISO 8601 time/,
    ],
    [
      'a malformed --stale-after',
      ['report', 'x', '--out', 'r', '--stale-after', '1 hour'],
      /--stale-after must be a positive duration .* \(got '1 hour'\)/,
    ],
  ])('refuses %s (exit 2, one line)', async (_, args, message) => {
    await expectUsageError(args, message);
  });

  it('refuses a --now before the latest receivedAt read (ages would be negative), writing nothing', async () => {
    const path = await writeStuckLog('early.ndjson');
    const out = join(dir, 'early.html');
    await expectUsageError(
      ['report', path, '--out', out, '--now', '2025-01-05'],
      /^signfold: --now 2025-01-05T00:00:00\.000Z is before the latest receivedAt read, 2025-01-11T00:00:00\.000Z \(use --to to leave later events out\)/,
    );
    await expect(stat(out)).rejects.toThrow();
    // With --to before it, the later events are not read: accepted.
    const cut = await runCli([
      'report',
      path,
      '--out',
      out,
      '--now',
      '2025-01-05',
      '--to',
      '2025-01-04',
    ]);
    expect(cut.code, cut.stderr).toBe(0);
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
