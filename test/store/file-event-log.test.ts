import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventLogReadError } from '../../src/engine/log-errors.js';
import { type FileIO, nodeFileIO } from '../../src/store/file-io.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { entriesOf, openLog, readAll, removeTempDirs, tempDir } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

const newPath = async (): Promise<string> => join(await tempDir(), 'log.ndjson');
const fixedNow = () => new Date('2025-06-01T12:00:00.000Z');

describe('openFileEventLog', () => {
  it('creates the file and appends envelope lines with increasing positions', async () => {
    const path = await newPath();
    const log = await openLog(path, { now: fixedNow });
    expect(log.lastPosition).toBe(0);
    expect(log.tornTail).toBeUndefined();
    const first = await log.append({ type: 'a' });
    const second = await log.append({ type: 'b' }, { deliveryId: 'd-2', receivedAt: new Date(0) });
    expect(first._unsafeUnwrap()).toEqual({
      kind: 'appended',
      position: 1,
      receivedAt: '2025-06-01T12:00:00.000Z',
    });
    expect(second._unsafeUnwrap()).toEqual({
      kind: 'appended',
      position: 2,
      receivedAt: '1970-01-01T00:00:00.000Z',
    });
    expect(log.lastPosition).toBe(2);
    await log.close();
    expect(await readFile(path, 'utf8')).toBe(
      '{"position":1,"receivedAt":"2025-06-01T12:00:00.000Z","event":{"type":"a"}}\n' +
        '{"position":2,"receivedAt":"1970-01-01T00:00:00.000Z","deliveryId":"d-2","event":{"type":"b"}}\n',
    );
  });

  it('reads back what it appended, from any position, and continues after reopen', async () => {
    const path = await newPath();
    const log = await openLog(path);
    for (let n = 1; n <= 5; n += 1) (await log.append({ n }))._unsafeUnwrap();
    expect(entriesOf(await readAll(log.read({ fromPosition: 4 })))).toEqual([
      [4, { n: 4 }],
      [5, { n: 5 }],
    ]);
    await log.close();
    const reopened = await openLog(path);
    expect(reopened.lastPosition).toBe(5);
    expect((await reopened.append({ n: 6 }))._unsafeUnwrap()).toMatchObject({ position: 6 });
    expect(entriesOf(await readAll(reopened.read())).map(([position]) => position)).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
    await reopened.close();
  });

  it('stores a delivery id once, also across reopen', async () => {
    const path = await newPath();
    const log = await openLog(path);
    expect((await log.append({ v: 1 }, { deliveryId: 'x' }))._unsafeUnwrap()).toMatchObject({
      kind: 'appended',
      position: 1,
    });
    expect((await log.append({ v: 2 }, { deliveryId: 'y' }))._unsafeUnwrap().position).toBe(2);
    expect((await log.append({ v: 3 }, { deliveryId: 'x' }))._unsafeUnwrap()).toEqual({
      kind: 'duplicate',
      position: 1,
    });
    await log.close();
    const reopened = await openLog(path);
    expect((await reopened.append({ v: 4 }, { deliveryId: 'y' }))._unsafeUnwrap()).toEqual({
      kind: 'duplicate',
      position: 2,
    });
    expect((await reopened.append({ v: 5 }, { deliveryId: 'z' }))._unsafeUnwrap()).toMatchObject({
      kind: 'appended',
      position: 3,
    });
    expect(entriesOf(await readAll(reopened.read()))).toEqual([
      [1, { v: 1 }],
      [2, { v: 2 }],
      [3, { v: 5 }],
    ]);
    await reopened.close();
  });

  it('serializes concurrent appends into distinct positions in call order', async () => {
    const path = await newPath();
    const log = await openLog(path);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        log.append({ i }, i % 10 === 0 ? { deliveryId: `id-${i % 100}` } : {}),
      ),
    );
    const outcomes = results.map((result) => result._unsafeUnwrap());
    const positions = outcomes.flatMap((o) => (o.kind === 'appended' ? [o.position] : []));
    expect(positions).toEqual(Array.from({ length: 190 }, (_, i) => i + 1));
    expect(results.filter((result) => result._unsafeUnwrap().kind === 'duplicate')).toHaveLength(
      10,
    );
    const stored = entriesOf(await readAll(log.read()));
    expect(stored).toHaveLength(190);
    expect(stored.map(([, event]) => (event as { i: number }).i)).toEqual(
      Array.from({ length: 200 }, (_, i) => i).filter((i) => i < 100 || i % 10 !== 0),
    );
    await log.close();
  });

  it('coalesces concurrent appends into fewer fsyncs (group commit)', async () => {
    let syncs = 0;
    const io: FileIO = {
      ...nodeFileIO,
      open: async (path, mode) => {
        const handle = await nodeFileIO.open(path, mode);
        return {
          ...handle,
          sync: () => {
            syncs += 1;
            return handle.sync();
          },
          // A write through O_DSYNC is a write and a sync in one.
          ...(handle.writeDurably === undefined
            ? {}
            : {
                writeDurably: (...args: Parameters<NonNullable<typeof handle.writeDurably>>) => {
                  syncs += 1;
                  return handle.writeDurably?.(...args) ?? Promise.resolve(0);
                },
              }),
        };
      },
    };
    const log = await openLog(await newPath(), { io });
    const before = syncs;
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => log.append({ i })));
    expect(results.every((result) => result.isOk())).toBe(true);
    // Grouped, but durable: at least one fsync, far fewer than one per append.
    expect(syncs - before).toBeGreaterThanOrEqual(1);
    expect(syncs - before).toBeLessThan(10);
    await log.close();
  });

  it('rejects a NaN fromPosition with a RangeError', async () => {
    const log = await openLog(await newPath());
    await expect(readAll(log.read({ fromPosition: Number.NaN }))).rejects.toBeInstanceOf(
      RangeError,
    );
    await log.close();
  });

  it('appends a batch with one write and rejects an invalid batch as a whole', async () => {
    const path = await newPath();
    const log = await openLog(path, { maxEventBytes: 100 });
    const batch = await log.appendBatch([
      { event: { a: 1 }, deliveryId: 'p' },
      { event: { a: 2 } },
      { event: { a: 3 }, deliveryId: 'p' },
    ]);
    expect(batch._unsafeUnwrap().map((outcome) => [outcome.kind, outcome.position])).toEqual([
      ['appended', 1],
      ['appended', 2],
      ['duplicate', 1],
    ]);
    const rejected = await log.appendBatch([{ event: { ok: true } }, { event: 'x'.repeat(200) }]);
    expect(rejected._unsafeUnwrapErr()).toMatchObject({ kind: 'too-large', size: 202, limit: 100 });
    expect(entriesOf(await readAll(log.read()))).toHaveLength(2);
    await log.close();
  });

  it('rejects unserializable events and bad options without consuming a position', async () => {
    const path = await newPath();
    const log = await openLog(path);
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    expect((await log.append(cyclic))._unsafeUnwrapErr().kind).toBe('not-serializable');
    expect((await log.append(undefined))._unsafeUnwrapErr().kind).toBe('not-serializable');
    expect((await log.append({ n: 1n }))._unsafeUnwrapErr().kind).toBe('not-serializable');
    expect(
      (await log.append({}, { receivedAt: new Date(Number.NaN) }))._unsafeUnwrapErr().kind,
    ).toBe('not-serializable');
    expect((await log.append('a string is stored too'))._unsafeUnwrap().position).toBe(1);
    expect(entriesOf(await readAll(log.read()))).toEqual([[1, 'a string is stored too']]);
    await log.close();
  });

  it('enforces maxEventBytes (default 256 KiB) with a too-large error', async () => {
    const log = await openLog(await newPath());
    const big = { blob: 'x'.repeat(256 * 1024) };
    expect((await log.append(big))._unsafeUnwrapErr()).toMatchObject({
      kind: 'too-large',
      size: 256 * 1024 + 11,
      limit: 256 * 1024,
    });
    await log.close();
  });

  it('continues a file of bare lines at the highest position + 1 and keeps bad lines', async () => {
    const path = await newPath();
    await writeFile(path, '{"type":"a"}\nnot json\n\n{"type":"c"}\n');
    const log = await openLog(path);
    expect(log.lastPosition).toBe(4);
    expect((await log.append({ type: 'e' }))._unsafeUnwrap().position).toBe(5);
    const records = await readAll(log.read());
    expect(records.map((record) => [record.kind, record.position, record.line])).toEqual([
      ['entry', 1, 1],
      ['bad-line', 2, 2],
      ['entry', 4, 4],
      ['entry', 5, 5],
    ]);
    await log.close();
  });

  it('adds the missing newline after a complete unterminated last line', async () => {
    const path = await newPath();
    await writeFile(path, '{"type":"a"}\n{"type":"b"}');
    const log = await openLog(path, { now: fixedNow });
    expect(log.tornTail).toBeUndefined();
    expect((await log.append({ type: 'c' }))._unsafeUnwrap().position).toBe(3);
    await log.close();
    expect(await readFile(path, 'utf8')).toBe(
      '{"type":"a"}\n{"type":"b"}\n{"position":3,"receivedAt":"2025-06-01T12:00:00.000Z","event":{"type":"c"}}\n',
    );
  });

  it('reads only acknowledged data and nothing after close', async () => {
    const path = await newPath();
    const log = await openLog(path);
    await log.append({ a: 1 });
    const pending = log.append({ a: 2 });
    await log.close();
    expect((await pending).isOk()).toBe(true);
    expect((await log.append({ a: 3 }))._unsafeUnwrapErr().kind).toBe('closed');
    const error = await readAll(log.read()).catch((cause: unknown) => cause);
    expect((error as EventLogReadError).error.kind).toBe('closed');
    await log.close();
    expect(entriesOf(await readAll(readFileEventLog(path)))).toHaveLength(2);
  });

  it('returns an io error when the log cannot be opened', async () => {
    const path = join(await tempDir(), 'no-such-dir', 'log.ndjson');
    const result = await (await import('../../src/store/file-event-log.js')).openFileEventLog(path);
    expect(result._unsafeUnwrapErr()).toMatchObject({ kind: 'io', code: 'ENOENT', path });
  });

  it('never parses hand-appended garbage after reopen as entries', async () => {
    const path = await newPath();
    const log = await openLog(path);
    await log.append({ a: 1 });
    await log.close();
    await appendFile(path, '\u0000\u0001garbage\n');
    const reopened = await openLog(path);
    // The bad line holds no position: the append takes the one after the last entry.
    expect((await reopened.append({ a: 2 }))._unsafeUnwrap().position).toBe(2);
    expect(reopened.lastPosition).toBe(2);
    const records = (await readAll(reopened.read())).map((r) => [r.kind, r.position, r.line]);
    expect(records).toEqual([
      ['entry', 1, 1],
      ['bad-line', 2, 2],
      ['entry', 2, 3],
    ]);
    await reopened.close();
  });
});
