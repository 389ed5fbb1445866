import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { readAll, removeTempDirs, tempDir } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

const fileWith = async (content: Uint8Array): Promise<string> => {
  const path = join(await tempDir(), 'events.ndjson');
  await writeFile(path, content);
  return path;
};

describe('the preview of an overlong line', () => {
  // A chunk holding a byte that is not UTF-8 is split on bytes (the slow path).
  const first = Buffer.concat([
    Buffer.from('{"type":"'),
    Buffer.from([0xff]),
    Buffer.from(`${'a'.repeat(40)}"}`),
  ]);
  const second = Buffer.from('{"second":"line-should-not-appear-in-preview"}');
  const content = Buffer.concat([first, Buffer.from('\n'), second, Buffer.from('\n')]);

  it('holds only that line, not the lines after it (invalid UTF-8 in the chunk)', async () => {
    const records = await readAll(readFileEventLog(await fileWith(content), { maxLineBytes: 20 }));
    expect(records.map((record) => record.kind)).toEqual(['bad-line', 'bad-line']);
    const [one, two] = records;
    expect(one?.raw).toBe(first.toString('utf8'));
    expect(two?.raw).toBe(second.toString('utf8'));
    for (const record of records) expect(record.raw).not.toContain('\n');
  });

  it('is cut at the preview length for a long line on the same path', async () => {
    const long = Buffer.concat([Buffer.from([0xff]), Buffer.from('b'.repeat(5000))]);
    const path = await fileWith(Buffer.concat([long, Buffer.from('\n{"n":1}\n')]));
    const records = await readAll(readFileEventLog(path, { maxLineBytes: 100 }));
    expect(records[0]).toMatchObject({ kind: 'bad-line', line: 1 });
    expect(records[0]?.raw.endsWith('…')).toBe(true);
    expect(records[0]?.raw).not.toContain('{"n":1}');
    expect(records[1]).toMatchObject({ kind: 'entry', line: 2, event: { n: 1 } });
  });
});

describe('a torn last line read by the read-only reader', () => {
  it('is a bad-line marked tornTail; other bad lines are not', async () => {
    const path = await fileWith(Buffer.from('not json\n{"n":1}\n{"n":2,"cut'));
    const records = await readAll(readFileEventLog(path));
    expect(records).toMatchObject([
      { kind: 'bad-line', line: 1 },
      { kind: 'entry', line: 2 },
      { kind: 'bad-line', line: 3, reason: 'torn tail (incomplete last line)', tornTail: true },
    ]);
    expect(records[0]).not.toHaveProperty('tornTail');
  });
});
