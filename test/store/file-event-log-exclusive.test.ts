/**
 * The file log's exclusive step (what `serve` runs `forget` in): appends queued before it are
 * committed first, those made during it wait and are committed after it, on the file as the step
 * left it (renamed over the old one), with its delivery ids known; a step that fails leaves the log
 * working; a file that cannot be opened again fails every later append instead of writing elsewhere.
 */
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFileEventLogFor } from '../../src/store/file-event-log.js';
import { removeTempDirs, tempDir } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

const open = async (path: string) => (await openFileEventLogFor(undefined, path))._unsafeUnwrap();

const lines = async (path: string) =>
  (await readFile(path, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { position: number; deliveryId?: string; event: unknown });

describe('ExclusiveFileEventLog.exclusive', () => {
  it('holds appends back during the step and commits them after it, on the file the step left', async () => {
    const path = join(await tempDir(), 'log.ndjson');
    const log = await open(path);
    await log.append({ type: 'a' }, { deliveryId: 'd-a' });
    const queued = log.append({ type: 'b' }, { deliveryId: 'd-b' });
    let during: ReturnType<typeof log.append> | undefined;
    let settledDuring = false;
    const result = await log.exclusive(async () => {
      // Queued before the step: already committed.
      expect((await lines(path)).map((l) => l.deliveryId)).toEqual(['d-a', 'd-b']);
      during = log.append({ type: 'c' }, { deliveryId: 'd-c' });
      void during.then(() => {
        settledDuring = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(settledDuring).toBe(false);
      // A rewritten copy renamed over the log, as forget does.
      const copy = `${path}.copy`;
      const text = (await readFile(path, 'utf8')).replaceAll('"type":"a"', '"type":"A"');
      await writeFile(copy, text);
      await rename(copy, path);
      return 'done';
    });
    expect(result).toBe('done');
    expect((await queued)._unsafeUnwrap().position).toBe(2);
    expect((await during)?._unsafeUnwrap()).toMatchObject({ kind: 'appended', position: 3 });
    // Committed after the step, to the new file, at the next position.
    const again = await log.append({ type: 'a' }, { deliveryId: 'd-a' });
    expect(again._unsafeUnwrap()).toEqual({ kind: 'duplicate', position: 1 });
    await log.close();
    const stored = await lines(path);
    expect(stored.map((l) => [l.position, l.deliveryId, l.event])).toEqual([
      [1, 'd-a', { type: 'A' }],
      [2, 'd-b', { type: 'b' }],
      [3, 'd-c', { type: 'c' }],
    ]);
  });

  it('a step that rejects: the rejection is passed on, appends go on', async () => {
    const path = join(await tempDir(), 'log.ndjson');
    const log = await open(path);
    await expect(
      log.exclusive(async () => {
        throw new Error('step failed');
      }),
    ).rejects.toThrow('step failed');
    expect((await log.append({ type: 'x' }))._unsafeUnwrap().position).toBe(1);
    await log.close();
  });

  it('a log that cannot be opened again fails every later append, and writes nowhere', async () => {
    const path = join(await tempDir(), 'log.ndjson');
    const log = await open(path);
    await log.append({ type: 'x' });
    await log.exclusive(async () => {
      await unlink(path);
      await mkdir(path);
    });
    const failed = await log.append({ type: 'y' });
    expect(failed.isErr() && failed.error.kind).toBe('io');
    expect(failed.isErr() && failed.error.message).toContain('opening again');
    await log.close();
  });
});
