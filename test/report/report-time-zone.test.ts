/**
 * The page never depends on the machine's time zone: time labels and periods
 * are UTC (d3's `utcFormat`, UTC intervals), so the same log gives the same
 * bytes in Tokyo and in Los Angeles.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';

afterAll(removeTempDirs);

describe('signfold report and time zones', () => {
  it('writes the same page whatever TZ is', async () => {
    const dir = await tempDir();
    const pages: string[] = [];
    for (const tz of ['UTC', 'Asia/Tokyo', 'America/Los_Angeles', 'Pacific/Chatham']) {
      const out = join(dir, `${tz.replace('/', '-')}.html`);
      // The same "now" for every run: without --now it is the clock, which moves between runs.
      const now = ['--now', '2025-10-12T10:00:00Z'];
      const run = await runCli(
        ['report', 'examples/events.ndjson', '--out', out, ...now],
        undefined,
        {
          ...process.env,
          TZ: tz,
        },
      );
      expect(run.code, run.stderr).toBe(0);
      pages.push(await readFile(out, 'utf8'));
    }
    expect(pages[0]).toContain('id="chart-volume"');
    for (const page of pages.slice(1)) expect(page === pages[0]).toBe(true);
  });
});
