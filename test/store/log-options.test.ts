import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFileEventLog } from '../../src/store/file-event-log.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { readAll, removeTempDirs, tempDir } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

const INVALID = [Number.NaN, 0, -1, 1.5, Number.POSITIVE_INFINITY, 2 ** 53];

describe.each(['maxEventBytes', 'maxLineBytes'] as const)('option %s', (name) => {
  it.each(INVALID)('createMemoryEventLog throws a RangeError for %s', (value) => {
    expect(() => createMemoryEventLog({ [name]: value })).toThrow(
      new RangeError(`${name} must be a positive integer (got ${value})`),
    );
  });

  it.each(INVALID)(
    'openFileEventLog rejects with a RangeError for %s, creating no file',
    async (value) => {
      const path = join(await tempDir(), 'log.ndjson');
      await expect(openFileEventLog(path, { [name]: value })).rejects.toThrow(RangeError);
      await expect(access(path)).rejects.toMatchObject({ code: 'ENOENT' });
    },
  );

  it('accepts a positive integer and enforces it on append', async () => {
    const memory = createMemoryEventLog({ [name]: 64 });
    const refused = await memory.append({ blob: 'x'.repeat(100) });
    expect(refused._unsafeUnwrapErr()).toMatchObject({ kind: 'too-large', limit: 64 });

    const path = join(await tempDir(), 'log.ndjson');
    const file = (await openFileEventLog(path, { [name]: 64, durability: 'none' }))._unsafeUnwrap();
    const refusedByFile = await file.append({ blob: 'x'.repeat(100) });
    expect(refusedByFile._unsafeUnwrapErr()).toMatchObject({ kind: 'too-large', limit: 64 });
    await file.close();
  });
});

describe('reader options', () => {
  it.each(['maxLineBytes', 'chunkBytes'] as const)(
    'readFileEventLog throws a RangeError for %s: 0',
    async (name) => {
      const path = join(await tempDir(), 'log.ndjson');
      await expect(readAll(readFileEventLog(path, { [name]: 0 }))).rejects.toThrow(RangeError);
    },
  );
});
