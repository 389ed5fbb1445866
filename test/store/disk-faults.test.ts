import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFileEventLog } from '../../src/store/file-event-log.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import {
  entriesOf,
  type FaultPlan,
  faultyIO,
  openLog,
  readAll,
  removeTempDirs,
  tempDir,
} from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

/** Reopens the file cleanly and checks it holds exactly `expected`, with no bad or torn line. */
const expectClean = async (path: string, expected: readonly (readonly [number, unknown])[]) => {
  const records = await readAll(readFileEventLog(path));
  expect(records.filter((record) => record.kind === 'bad-line')).toEqual([]);
  expect(entriesOf(records)).toEqual(expected);
  expect((await readFile(path, 'utf8')).endsWith('\n')).toBe(true);
};

describe.each([
  ['ENOSPC on write (after a partial write)', { write: 'ENOSPC' }, 'ENOSPC'],
  ['EACCES on write', { write: 'EACCES', partialBytes: 0 }, 'EACCES'],
  ['EIO on fsync', { sync: 'EIO' }, 'EIO'],
  ['ENOSPC on write with a failing truncate', { write: 'ENOSPC', truncate: 'EIO' }, 'ENOSPC'],
] satisfies readonly (readonly [string, FaultPlan, string])[])('%s', (_name, faults, code) => {
  it('returns an io error with the code, loses nothing, and recovers', async () => {
    const path = join(await tempDir(), 'log.ndjson');
    const plan: FaultPlan = {};
    const log = await openLog(path, { io: faultyIO(plan) });
    expect((await log.append({ n: 1 }, { deliveryId: 'one' }))._unsafeUnwrap().position).toBe(1);

    Object.assign(plan, faults);
    const failed = await log.append({ n: 2 }, { deliveryId: 'two' });
    expect(failed._unsafeUnwrapErr()).toMatchObject({ kind: 'io', code, path });
    const failedBatch = await log.appendBatch([{ event: { n: 2 } }, { event: { n: 3 } }]);
    expect(failedBatch._unsafeUnwrapErr()).toMatchObject({ kind: 'io' });
    expect(log.lastPosition).toBe(1);

    for (const key of Object.keys(plan) as (keyof FaultPlan)[]) delete plan[key];
    // The failed id was never stored, so the retry appends it, at the next position.
    expect((await log.append({ n: 2 }, { deliveryId: 'two' }))._unsafeUnwrap()).toMatchObject({
      kind: 'appended',
      position: 2,
    });
    expect(entriesOf(await readAll(log.read()))).toEqual([
      [1, { n: 1 }],
      [2, { n: 2 }],
    ]);
    await log.close();
    await expectClean(path, [
      [1, { n: 1 }],
      [2, { n: 2 }],
    ]);
  });
});

describe('persistent faults', () => {
  it('keeps failing while a half-written group cannot be cut, then cleans up', async () => {
    const path = join(await tempDir(), 'log.ndjson');
    const plan: FaultPlan = {};
    const log = await openLog(path, { io: faultyIO(plan) });
    await log.append({ n: 1 });
    Object.assign(plan, { write: 'ENOSPC', truncate: 'EROFS' });
    expect((await log.append({ n: 2 }))._unsafeUnwrapErr()).toMatchObject({ code: 'ENOSPC' });
    plan.write = undefined;
    // The write would succeed now, but the garbage past the last good line must go first.
    expect((await log.append({ n: 3 }))._unsafeUnwrapErr()).toMatchObject({ code: 'EROFS' });
    plan.truncate = undefined;
    expect((await log.append({ n: 4 }))._unsafeUnwrap().position).toBe(2);
    await log.close();
    await expectClean(path, [
      [1, { n: 1 }],
      [2, { n: 4 }],
    ]);
  });

  it('reports EACCES when the log cannot be opened', async () => {
    const path = join(await tempDir(), 'log.ndjson');
    const result = await openFileEventLog(path, { io: faultyIO({ open: 'EACCES' }) });
    expect(result._unsafeUnwrapErr()).toMatchObject({ kind: 'io', code: 'EACCES', path });
  });

  it.each([
    ['nothing', 0],
    ['part of it', 3],
  ])(
    'fails open with an io error when the torn tail cannot be set aside (%s copied), leaving no .torn-* file',
    async (_copied, partialBytes) => {
      const dir = await tempDir();
      const path = join(dir, 'log.ndjson');
      await writeFile(path, '{"a":1}\n{"a":');
      const result = await openFileEventLog(path, {
        io: faultyIO({ write: 'ENOSPC', partialBytes }),
      });
      expect(result._unsafeUnwrapErr()).toMatchObject({ kind: 'io', code: 'ENOSPC' });
      // Nothing was cut: the fragment is still there for the next attempt, and only there.
      expect(await readFile(path, 'utf8')).toBe('{"a":1}\n{"a":');
      expect(await readdir(dir)).toEqual(['log.ndjson']);
      // Once there is room, the next open sets it aside as usual.
      const log = await openLog(path);
      expect(log.tornTail?.bytes).toBe(5);
      await log.close();
      expect((await readdir(dir)).filter((name) => name.includes('.torn-'))).toHaveLength(1);
    },
  );
});
