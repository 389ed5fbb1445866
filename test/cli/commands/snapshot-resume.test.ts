/**
 * `replay --from-snapshot` against a log that ends before the snapshot's
 * checkpoint (finding 3 of issue 21): refused with exit 2, one line on stderr
 * and nothing on stdout, instead of a replay that skipped the whole log.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MIXED_LOG, removeTempDirs, runCli, tempDir, writeFixture } from '../cli-helpers.js';

afterAll(removeTempDirs);

describe('replay --from-snapshot with a checkpoint past the end of the log', () => {
  it('is refused: exit 2, one line on stderr, nothing on stdout, no snapshot written', async () => {
    const longer = await writeFixture('longer.ndjson', MIXED_LOG);
    const shorter = await writeFixture('shorter.ndjson', MIXED_LOG.slice(0, 5));
    const dir = await tempDir();
    const snapshot = join(dir, 'state.snapshot.json');
    expect((await runCli(['replay', longer, '--until', '9', '--snapshot', snapshot])).code).toBe(0);
    for (const extra of [[], ['--json'], ['--snapshot', join(dir, 'next.json')]]) {
      const resumed = await runCli(['replay', shorter, '--from-snapshot', snapshot, ...extra]);
      expect(resumed.code).toBe(2);
      expect(resumed.stdout).toBe('');
      expect(resumed.stderr).toBe(
        `signfold: ${shorter}: the checkpoint 9 lies past the end of the log (it has no record at position 9 or later): the snapshot was taken from another or a longer log; replay from the start\n`,
      );
    }
    await expect(stat(join(dir, 'next.json'))).rejects.toThrow(/ENOENT/);
    // From the start, the shorter log replays and writes its own snapshot.
    const written = await runCli(['replay', shorter, '--snapshot', join(dir, 'next.json')]);
    expect(written.code).toBe(0);
    expect((await stat(join(dir, 'next.json'))).isFile()).toBe(true);
  });

  it('resumes when the log reaches the checkpoint, even with nothing after it', async () => {
    const log = await writeFixture('events.ndjson', MIXED_LOG);
    const head = await writeFixture('head.ndjson', MIXED_LOG.slice(0, 9));
    const snapshot = join(await tempDir(), 'state.snapshot.json');
    expect((await runCli(['replay', log, '--until', '9', '--snapshot', snapshot])).code).toBe(0);
    const atEnd = await runCli(['replay', head, '--from-snapshot', snapshot, '--json']);
    expect(atEnd.code).toBe(0);
    const full = await runCli(['replay', head, '--json']);
    const keys = ['processed', 'stats', 'checkpoint', 'signRequests', 'quarantine'];
    const pick = (text: string) => {
      const value = JSON.parse(text) as Record<string, unknown>;
      return keys.map((key) => value[key]);
    };
    expect(pick(atEnd.stdout)).toEqual(pick(full.stdout));
  });
});
