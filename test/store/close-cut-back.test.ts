import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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

describe('FileEventLog.close after a failed append whose cut-back failed too', () => {
  it.each([
    ['fsync fails (the whole group reached the file)', { sync: 'EIO', truncate: 'EIO' }],
    ['a write fails half-way', { write: 'ENOSPC', truncate: 'EIO' }],
  ] satisfies readonly (readonly [string, FaultPlan])[])(
    'cuts the unacknowledged bytes before closing: %s',
    async (_name, faults) => {
      const path = join(await tempDir(), 'log.ndjson');
      const plan: FaultPlan = {};
      const log = await openLog(path, { io: faultyIO(plan) });
      expect((await log.append({ n: 1 }))._unsafeUnwrap().position).toBe(1);
      const acknowledged = await readFile(path, 'utf8');

      Object.assign(plan, faults);
      const failed = await log.append({ n: 'not acknowledged' }, { deliveryId: 'lost' });
      expect(failed._unsafeUnwrapErr()).toMatchObject({ kind: 'io' });

      // The fault clears and the application shuts down without appending again.
      for (const key of Object.keys(plan) as (keyof FaultPlan)[]) delete plan[key];
      await log.close();

      expect(await readFile(path, 'utf8')).toBe(acknowledged);
      const records = await readAll(readFileEventLog(path));
      expect(records.filter((record) => record.kind === 'bad-line')).toEqual([]);
      expect(entriesOf(records)).toEqual([[1, { n: 1 }]]);

      const reopened = await openLog(path);
      expect(reopened.tornTail).toBeUndefined();
      expect(reopened.lastPosition).toBe(1);
      // The failed delivery id was never stored: a retry appends it.
      const retried = await reopened.append({ n: 2 }, { deliveryId: 'lost' });
      expect(retried._unsafeUnwrap()).toMatchObject({ kind: 'appended', position: 2 });
      await reopened.close();
    },
  );

  it('still closes (and leaves the bytes, as a crash would) when the cut fails at close too', async () => {
    const path = join(await tempDir(), 'log.ndjson');
    const plan: FaultPlan = {};
    const log = await openLog(path, { io: faultyIO(plan) });
    await log.append({ n: 1 });
    Object.assign(plan, { write: 'ENOSPC', truncate: 'EIO' });
    expect((await log.append({ n: 2 }))._unsafeUnwrapErr()).toMatchObject({ kind: 'io' });
    await expect(log.close()).resolves.toBeUndefined();
    // The half-written line is a torn tail at the next open, set aside, never parsed as data.
    const reopened = await openLog(path);
    expect(reopened.tornTail).toBeDefined();
    expect(entriesOf(await readAll(reopened.read()))).toEqual([[1, { n: 1 }]]);
    await reopened.close();
  });
});
