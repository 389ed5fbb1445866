import { readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { entriesOf, openLog, readAll, removeTempDirs, tempDir } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

const complete =
  '{"position":1,"receivedAt":"2025-01-01T00:00:00.000Z","deliveryId":"a","event":{"n":1}}\n' +
  '{"position":2,"receivedAt":"2025-01-01T00:00:01.000Z","deliveryId":"b","event":{"n":2}}\n';
const fragment = '{"position":3,"receivedAt":"2025-01-01T00:00:0';

describe('torn tail', () => {
  it('keeps complete entries, sets the fragment aside and truncates the log on open', async () => {
    const path = join(await tempDir(), 'log.ndjson');
    await writeFile(path, complete + fragment);
    const log = await openLog(path, { now: () => new Date('2025-02-03T04:05:06.789Z') });
    expect(log.tornTail).toEqual({
      line: 3,
      bytes: Buffer.byteLength(fragment),
      setAsideTo: `${path}.torn-20250203T040506789Z`,
    });
    expect(log.lastPosition).toBe(2);
    expect(await readFile(path, 'utf8')).toBe(complete);
    expect(await readFile(`${path}.torn-20250203T040506789Z`, 'utf8')).toBe(fragment);

    expect((await log.append({ n: 3 }, { deliveryId: 'c' }))._unsafeUnwrap().position).toBe(3);
    expect((await log.append({ n: 9 }, { deliveryId: 'a' }))._unsafeUnwrap()).toEqual({
      kind: 'duplicate',
      position: 1,
    });
    const records = await readAll(log.read());
    expect(records.every((record) => record.kind === 'entry')).toBe(true);
    expect(entriesOf(records)).toEqual([
      [1, { n: 1 }],
      [2, { n: 2 }],
      [3, { n: 3 }],
    ]);
    await log.close();

    const reopened = await openLog(path);
    expect(reopened.tornTail).toBeUndefined();
    await reopened.close();
  });

  it('treats a fragment cutting a multi-byte character as torn', async () => {
    const path = join(await tempDir(), 'log.ndjson');
    const bytes = Buffer.concat([
      Buffer.from(`${complete}{"event":"`),
      Buffer.from('€').subarray(0, 2),
    ]);
    await writeFile(path, bytes);
    const log = await openLog(path);
    expect(log.tornTail).toMatchObject({ line: 3, bytes: 12 });
    expect(await readFile(path, 'utf8')).toBe(complete);
    await log.close();
  });

  it('picks a fresh sibling name when one exists', async () => {
    const path = join(await tempDir(), 'log.ndjson');
    const now = () => new Date('2025-02-03T04:05:06.789Z');
    await writeFile(path, complete + fragment);
    await (await openLog(path, { now })).close();
    await writeFile(path, complete + fragment);
    const second = await openLog(path, { now });
    expect(second.tornTail?.setAsideTo).toBe(`${path}.torn-20250203T040506789Z-2`);
    await second.close();
    const names = (await readdir(dirname(path))).filter((name) => name !== basename(path));
    expect(names.sort()).toEqual([
      'log.ndjson.torn-20250203T040506789Z',
      'log.ndjson.torn-20250203T040506789Z-2',
    ]);
  });

  it('sets aside an overlong unterminated tail in constant memory', async () => {
    const path = join(await tempDir(), 'log.ndjson');
    const huge = `{"x":"${'z'.repeat(3 * 1024 * 1024)}`;
    await writeFile(path, complete + huge);
    const log = await openLog(path, { maxLineBytes: 64 * 1024, chunkBytes: 64 * 1024 });
    expect(log.tornTail?.bytes).toBe(huge.length);
    expect(await readFile(path, 'utf8')).toBe(complete);
    expect((await readFile(log.tornTail?.setAsideTo ?? '', 'utf8')).length).toBe(huge.length);
    await log.close();
  });

  it('is reported, not repaired, by the read-only reader', async () => {
    const path = join(await tempDir(), 'log.ndjson');
    await writeFile(path, complete + fragment);
    const records = await readAll(readFileEventLog(path));
    expect(records.map((record) => record.kind)).toEqual(['entry', 'entry', 'bad-line']);
    expect(records[2]).toMatchObject({
      position: 3,
      line: 3,
      raw: fragment,
      reason: 'torn tail (incomplete last line)',
    });
    expect(await readFile(path, 'utf8')).toBe(complete + fragment);
    expect(await readdir(dirname(path))).toEqual(['log.ndjson']);
  });
});
