import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { FileHandleIO, FileIO } from '../../src/store/file-io.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { fileWith, readAll, removeTempDirs, summary, tempDir } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

describe('readFileEventLog: hostile input', () => {
  it('skips a 20 MB line over maxLineBytes and reads the lines after it', async () => {
    const path = await fileWith(`{"a":1}\n{"big":"${'x'.repeat(20 * 1024 * 1024)}"}\n{"b":2}\n`);
    const records = summary(await readAll(readFileEventLog(path, { maxLineBytes: 1024 * 1024 })));
    expect(records).toEqual([
      { kind: 'entry', position: 1, line: 1, event: { a: 1 } },
      {
        kind: 'bad',
        position: 2,
        line: 2,
        reason: `line too long (${20 * 1024 * 1024 + 10} bytes > limit ${1024 * 1024})`,
      },
      { kind: 'entry', position: 3, line: 3, event: { b: 2 } },
    ]);
  });

  it('skips a 1 GB line in constant memory', async () => {
    // A virtual file: 1 GiB of 'x' then a newline and one good line, served without a disk.
    const lineBytes = 1024 * 1024 * 1024;
    const tail = Buffer.from('\n{"after":true}\n');
    const size = lineBytes + tail.length;
    let peak = 0;
    const start = process.memoryUsage();
    const handle: FileHandleIO = {
      size: async () => size,
      read: async (buffer, offset, length, position) => {
        const n = Math.min(length, size - position);
        const fill = Math.max(0, Math.min(n, lineBytes - position));
        buffer.fill(0x78, offset, offset + fill);
        if (fill < n)
          Buffer.from(tail.subarray(position + fill - lineBytes)).copy(
            buffer,
            offset + fill,
            0,
            n - fill,
          );
        const usage = process.memoryUsage();
        peak = Math.max(
          peak,
          usage.heapUsed + usage.arrayBuffers - start.heapUsed - start.arrayBuffers,
        );
        return n;
      },
      write: async () => 0,
      sync: async () => undefined,
      truncate: async () => undefined,
      close: async () => undefined,
    };
    const io: FileIO = { open: async () => handle, syncDirectory: async () => undefined };
    const records = summary(await readAll(readFileEventLog('virtual', { io })));
    expect(records).toEqual([
      { kind: 'bad', position: 1, line: 1, reason: expect.stringContaining(`${lineBytes} bytes`) },
      { kind: 'entry', position: 2, line: 2, event: { after: true } },
    ]);
    expect(peak).toBeLessThan(64 * 1024 * 1024);
  });

  it('reports invalid UTF-8 per line', async () => {
    const path = await fileWith(
      Buffer.concat([
        Buffer.from('{"a":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}\n{"b":"\uFFFD is a real character"}\n{"c":"'),
        Buffer.from([0xe2, 0x82]), // truncated 3-byte sequence
        Buffer.from('"}\n{"d":1}\n'),
      ]),
    );
    const records = summary(await readAll(readFileEventLog(path)));
    expect(records).toEqual([
      { kind: 'bad', position: 1, line: 1, reason: 'invalid UTF-8' },
      { kind: 'entry', position: 2, line: 2, event: { b: '\uFFFD is a real character' } },
      { kind: 'bad', position: 3, line: 3, reason: 'invalid UTF-8' },
      { kind: 'entry', position: 4, line: 4, event: { d: 1 } },
    ]);
  });

  it('reads a binary garbage file as bad lines without crashing', async () => {
    const bytes = Buffer.from(
      fc.sample(fc.integer({ min: 0, max: 255 }), { numRuns: 200_000, seed: 7 }),
    );
    const path = await fileWith(bytes);
    const records = await readAll(readFileEventLog(path, { maxLineBytes: 4096 }));
    expect(records.length).toBeGreaterThan(100);
    // With no entry, every bad line stands before position 1 and none holds it.
    expect(new Set(records.map((record) => record.position))).toEqual(new Set([1]));
    const lines = records.map((record) => record.line);
    expect(lines.every((line, i) => i === 0 || line > (lines[i - 1] as number))).toBe(true);
    expect(records.filter((record) => record.kind === 'entry')).toEqual([]);
  });

  it('gives the same records whatever the chunk size', async () => {
    const line = fc.oneof(
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc.dictionary(fc.string(), fc.jsonValue()).map((value) => JSON.stringify(value)),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.constantFrom(
        '',
        '{"position":2,"event":{}}',
        '{"position":9,"event":"é€😀"}',
        'x'.repeat(300),
      ),
    );
    const dir = await tempDir();
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 30 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 64 }),
        async (lines, terminated, chunkBytes) => {
          const path = join(dir, 'chunks.ndjson');
          await writeFile(path, lines.join('\n') + (terminated ? '\n' : ''));
          const reference = await readAll(readFileEventLog(path, { maxLineBytes: 200 }));
          const chunked = await readAll(readFileEventLog(path, { maxLineBytes: 200, chunkBytes }));
          expect(chunked).toEqual(reference);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('readFileEventLog: torn tail', () => {
  it('reports an unparsable unterminated last line without modifying the file', async () => {
    const content = '{"type":"a"}\n{"type":"b"}\n{"position":3,"receivedAt":"2025-01';
    const path = await fileWith(content);
    const records = summary(await readAll(readFileEventLog(path)));
    expect(records).toEqual([
      { kind: 'entry', position: 1, line: 1, event: { type: 'a' } },
      { kind: 'entry', position: 2, line: 2, event: { type: 'b' } },
      { kind: 'bad', position: 3, line: 3, reason: 'torn tail (incomplete last line)' },
    ]);
    expect(await readFile(path, 'utf8')).toBe(content);
  });

  it('treats an unterminated last line that parses as complete data', async () => {
    const path = await fileWith('{"type":"a"}\n{"type":"b"}');
    const records = summary(await readAll(readFileEventLog(path)));
    expect(records.map((r) => r.kind)).toEqual(['entry', 'entry']);
  });
});
