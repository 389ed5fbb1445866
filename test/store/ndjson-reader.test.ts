import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EventLogReadError } from '../../src/engine/log-errors.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { fileWith, readAll, removeTempDirs, summary, tempDir } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

describe('readFileEventLog: line formats', () => {
  it('gives bare lines their line number as position', async () => {
    const path = await fileWith('{"type":"a"}\n{"type":"b"}\n');
    const records = await readAll(readFileEventLog(path));
    expect(summary(records)).toEqual([
      { kind: 'entry', position: 1, line: 1, event: { type: 'a' } },
      { kind: 'entry', position: 2, line: 2, event: { type: 'b' } },
    ]);
    expect(records[0]).toMatchObject({
      receivedAt: undefined,
      deliveryId: undefined,
      raw: '{"type":"a"}',
    });
  });

  it('reads envelopes with their own positions, time stamps and delivery ids', async () => {
    const path = await fileWith(
      [
        '{"position":3,"receivedAt":"2025-01-01T00:00:00.000Z","deliveryId":"d1","event":{"type":"a"}}',
        '{"position":7,"receivedAt":"2025-01-02T00:00:00.000Z","event":{"type":"b"}}',
        '',
      ].join('\n'),
    );
    const records = await readAll(readFileEventLog(path));
    expect(records).toEqual([
      {
        kind: 'entry',
        position: 3,
        line: 1,
        receivedAt: '2025-01-01T00:00:00.000Z',
        deliveryId: 'd1',
        event: { type: 'a' },
        raw: '{"position":3,"receivedAt":"2025-01-01T00:00:00.000Z","deliveryId":"d1","event":{"type":"a"}}',
      },
      {
        kind: 'entry',
        position: 7,
        line: 2,
        receivedAt: '2025-01-02T00:00:00.000Z',
        deliveryId: undefined,
        event: { type: 'b' },
        raw: '{"position":7,"receivedAt":"2025-01-02T00:00:00.000Z","event":{"type":"b"}}',
      },
    ]);
  });

  it('mixes formats, skips blank lines, and keeps positions strictly increasing', async () => {
    const path = await fileWith(
      [
        '{"type":"bare1"}',
        '',
        '   ',
        '{"position":5,"event":{"type":"env5"}}',
        '{"type":"bare5"}', // line 5, but position 5 is taken: next free position
        '{"type":"bare6"}',
        '\r',
        '{"position":"9","event":{"type":"not-an-envelope"}}',
        '',
      ].join('\n'),
    );
    const records = await readAll(readFileEventLog(path));
    expect(summary(records).map((r) => [r.position, r.line])).toEqual([
      [1, 1],
      [5, 4],
      [6, 5],
      [7, 6],
      [8, 8],
    ]);
    expect(records[4]).toMatchObject({
      event: { position: '9', event: { type: 'not-an-envelope' } },
    });
  });

  it('reports bad lines with specific reasons and keeps reading', async () => {
    const path = await fileWith(
      [
        '{"type":"ok1"}',
        '{"type": broken',
        '[1,2]',
        '42',
        'null',
        '{"position":1.5,"event":{}}',
        '{"position":2,"event":{}}',
        '{"position":2,"event":{}}',
        '{"position":20,"event":{"type":"ok20"}}',
        '{"type":"ok10"}',
        '',
      ].join('\n'),
    );
    const records = summary(await readAll(readFileEventLog(path)));
    // Bad lines take the position after the last entry without holding it.
    expect(records).toEqual([
      { kind: 'entry', position: 1, line: 1, event: { type: 'ok1' } },
      { kind: 'bad', position: 2, line: 2, reason: expect.stringMatching(/^invalid JSON: /) },
      { kind: 'bad', position: 2, line: 3, reason: 'not a JSON object (got array)' },
      { kind: 'bad', position: 2, line: 4, reason: 'not a JSON object (got number)' },
      { kind: 'bad', position: 2, line: 5, reason: 'not a JSON object (got null)' },
      {
        kind: 'bad',
        position: 2,
        line: 6,
        reason: 'envelope position must be a positive integer (got 1.5)',
      },
      { kind: 'entry', position: 2, line: 7, event: {} },
      {
        kind: 'bad',
        position: 3,
        line: 8,
        reason: 'envelope position 2 is not greater than the previous position 2',
      },
      { kind: 'entry', position: 20, line: 9, event: { type: 'ok20' } },
      { kind: 'entry', position: 21, line: 10, event: { type: 'ok10' } },
    ]);
  });

  it('truncates the raw text of a bad line to about 200 characters', async () => {
    const path = await fileWith(`{"x":"${'y'.repeat(5000)}\n`);
    const [record] = await readAll(readFileEventLog(path));
    expect(record?.kind).toBe('bad-line');
    expect(record?.raw.length).toBeLessThanOrEqual(201);
  });

  it('starts at fromPosition (inclusive)', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => JSON.stringify({ n: i + 1 }));
    const path = await fileWith(`${lines.join('\n')}\n`);
    const records = await readAll(readFileEventLog(path, { fromPosition: 8 }));
    expect(summary(records).map((r) => r.position)).toEqual([8, 9, 10]);
    expect(await readAll(readFileEventLog(path, { fromPosition: 11 }))).toEqual([]);
  });

  it('strips a byte order mark and tolerates CRLF line ends', async () => {
    const path = await fileWith('\uFEFF{"type":"a"}\r\n{"type":"b"}\r\n');
    const records = summary(await readAll(readFileEventLog(path)));
    expect(records.map((r) => r.kind === 'entry' && r.event)).toEqual([
      { type: 'a' },
      { type: 'b' },
    ]);
  });

  it('yields one array per chunk, not one per record', async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ n: i }));
    const path = await fileWith(`${lines.join('\n')}\n`);
    let batches = 0;
    let count = 0;
    for await (const batch of readFileEventLog(path, { chunkBytes: 4096 })) {
      batches += 1;
      count += batch.length;
    }
    expect(count).toBe(1000);
    expect(batches).toBeLessThan(10);
  });

  it('throws an EventLogReadError with the errno code for a missing file', async () => {
    const path = join(await tempDir(), 'missing.ndjson');
    const error = await readAll(readFileEventLog(path)).catch((cause: unknown) => cause);
    expect(error).toBeInstanceOf(EventLogReadError);
    expect((error as EventLogReadError).error).toMatchObject({ kind: 'io', code: 'ENOENT', path });
  });
});
