/** Snapshot files: the temporary files a crashed write leaves behind are removed by the next write. */
import { spawnSync } from 'node:child_process';
import { readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProjector } from '../../src/engine/projector.js';
import { takeSnapshot } from '../../src/engine/snapshot.js';
import { readSnapshotFile, writeSnapshotFile } from '../../src/store/snapshot-file.js';
import { removeTempDirs, tempDir } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid ?? 0;

describe('writeSnapshotFile', () => {
  it('removes temporary files that crashed writes of the same snapshot left, and nothing else', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.snapshot');
    const crashed = `state.snapshot.${deadPid()}.0badc0de.tmp`;
    const mineEarlier = `state.snapshot.${process.pid}.12345678.tmp`;
    // A live process's write in progress (our parent runs), fresh: must be left alone.
    const liveWriter = `state.snapshot.${process.ppid}.abcdef01.tmp`;
    // Same pattern, another snapshot path: not ours to clean.
    const otherSnapshot = `other.snapshot.${deadPid()}.0badc0de.tmp`;
    const unrelated = 'state.snapshot.notes.tmp';
    for (const name of [crashed, mineEarlier, liveWriter, otherSnapshot, unrelated]) {
      await writeFile(join(dir, name), '{"half":');
    }
    const snapshot = takeSnapshot(createProjector());
    expect((await writeSnapshotFile(path, snapshot)).isOk()).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(
      [liveWriter, otherSnapshot, 'state.snapshot', unrelated].sort(),
    );
    expect((await readSnapshotFile(path))._unsafeUnwrap()).toEqual(
      JSON.parse(JSON.stringify(snapshot)),
    );
  });

  it('removes a temporary file older than an hour even if its pid runs (another host, or a reused pid)', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.snapshot');
    const old = join(dir, `state.snapshot.${process.ppid}.abcdef01.tmp`);
    await writeFile(old, '{"half":');
    const then = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(old, then, then);
    await writeSnapshotFile(path, takeSnapshot(createProjector()));
    expect(await readdir(dir)).toEqual(['state.snapshot']);
  });

  it('does not remove the temporary files of its own writes in flight', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.snapshot');
    const snapshot = takeSnapshot(createProjector());
    const results = await Promise.all(
      Array.from({ length: 8 }, () => writeSnapshotFile(path, snapshot)),
    );
    expect(results.every((result) => result.isOk())).toBe(true);
    expect(await readdir(dir)).toEqual(['state.snapshot']);
  });
});
