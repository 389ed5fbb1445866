/**
 * Limits instead of exhaustion: the log reader's `maxLineBytes` (a 64 MB line
 * is skipped in constant memory, measured with RSS; 1 GB under stress), the
 * decoder's `maxLength`, and files that are not text at all (random bytes,
 * invalid UTF-8), which are reported line by line as bad lines by
 * `readFileEventLog` and quarantined by the projector, never crashed on.
 */
import { open, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../bench/generate-stream.js';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { DEFAULT_MAX_EVENT_LENGTH, decodeEventJson } from '../../src/core/events/decode-event.js';
import { encodeEvent } from '../../src/core/events/encode-event.js';
import type { LogRecord } from '../../src/engine/event-log.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../src/engine/log-limits.js';
import { createProjector } from '../../src/engine/projector.js';
import { openFileEventLog } from '../../src/store/file-event-log.js';
import { type FileReadOptions, readFileEventLog } from '../../src/store/file-record-stream.js';
import {
  count,
  Figures,
  pollution,
  removeTempDirs,
  STRESS,
  tempDir,
} from './fixtures/reliability-helpers.js';

const figures = new Figures('limits');
afterAll(async () => {
  await removeTempDirs();
  expect(pollution()).toBeUndefined();
  figures.print();
});

const MiB = 1024 * 1024;

/** A few valid event lines (bare wire events). */
const VALID_LINES = [
  JSON.stringify(encodeEvent(buildEvent('template-activated'))),
  JSON.stringify(encodeEvent(buildEvent('sign-request-sent'))),
  JSON.stringify(encodeEvent(buildEvent('participant-sent'))),
  JSON.stringify(encodeEvent(buildEvent('participant-signed'))),
];

const readAll = async (path: string, options?: FileReadOptions): Promise<LogRecord[]> => {
  const records: LogRecord[] = [];
  for await (const batch of readFileEventLog(path, options)) records.push(...batch);
  return records;
};

/** Replays a file through a projector (skip policy) and returns it. */
const replayFile = async (path: string, options?: FileReadOptions) => {
  const projector = createProjector();
  const replayed = await projector.replay({
    read: (o) => readFileEventLog(path, { ...options, ...o }),
  });
  expect(replayed.isOk()).toBe(true);
  return projector;
};

/** Writes `size` bytes of `fill` in 1 MiB pieces (never holding the whole line), then `tail`. */
const writeLongLine = async (path: string, size: number, fill: number, tail: string) => {
  const handle = await open(path, 'w');
  try {
    const piece = Buffer.alloc(MiB, fill);
    for (let offset = 0; offset < size; offset += MiB) {
      await handle.write(piece, 0, Math.min(MiB, size - offset), offset);
    }
    await handle.write(Buffer.from(tail), 0, Buffer.byteLength(tail), size);
  } finally {
    await handle.close();
  }
};

/** Runs `work` while sampling RSS every few milliseconds; returns its result and the peak growth. */
const peakRssGrowth = async <T>(
  work: (sample: () => void) => Promise<T>,
): Promise<{ readonly result: T; readonly growth: number }> => {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sample = (): void => {
    peak = Math.max(peak, process.memoryUsage.rss());
  };
  const timer = setInterval(sample, 2);
  try {
    const result = await work(sample);
    sample();
    return { result, growth: peak - before };
  } finally {
    clearInterval(timer);
  }
};

/** The checks shared by the 64 MB and 1 GB cases. */
const checkLongLine = async (path: string, lineBytes: number, label: string) => {
  const { result: records, growth } = await peakRssGrowth(async (sample) => {
    const out: LogRecord[] = [];
    for await (const batch of readFileEventLog(path)) {
      sample();
      out.push(...batch);
    }
    return out;
  });
  expect(records.map((r) => r.kind)).toEqual(['bad-line', 'entry', 'entry', 'entry', 'entry']);
  const first = records[0];
  expect(first).toMatchObject({
    kind: 'bad-line',
    position: 1,
    line: 1,
    reason: `line too long (${lineBytes} bytes > limit ${DEFAULT_MAX_LINE_BYTES})`,
  });
  expect(first?.raw.length).toBeLessThanOrEqual(201);
  // Far below the line: the reader keeps one 1 MiB chunk and a preview.
  expect(growth).toBeLessThan(32 * MiB);
  figures.set(`${label}: peak RSS growth while reading (bytes)`, growth);
  figures.add('bytes read through the limits', lineBytes);

  const projector = await replayFile(path);
  expect(projector.quarantine().map((q) => [q.position, q.reason.kind])).toEqual([[1, 'bad-line']]);
  expect(projector.stats().applied).toBe(4);
  return growth;
};

describe('maxLineBytes: an overlong line is a bad line, skipped in constant memory', () => {
  it('a 64 MB line with no newline until its end, then valid lines', async () => {
    const path = join(await tempDir(), 'long-line.ndjson');
    const lineBytes = 64 * MiB;
    await writeLongLine(path, lineBytes, 0x61, `\n${VALID_LINES.join('\n')}\n`);
    await checkLongLine(path, lineBytes, '64 MB line');

    // The file log opens it (scan in constant memory too) and appends after it.
    const opened = await openFileEventLog(path, { durability: 'none' });
    const log = opened._unsafeUnwrap();
    expect(log.lastPosition).toBe(5);
    expect(log.tornTail).toBeUndefined();
    expect(
      (await log.append(encodeEvent(buildEvent('participant-viewed'))))._unsafeUnwrap(),
    ).toMatchObject({ kind: 'appended', position: 6 });
    await log.close();
    figures.add('overlong lines read', 2);
  });

  it('the same long line as the unterminated last line is a torn tail, set aside by the file log', async () => {
    const path = join(await tempDir(), 'long-tail.ndjson');
    const lineBytes = 8 * MiB;
    await writeFile(path, `${VALID_LINES.join('\n')}\n`);
    const handle = await open(path, 'a');
    await handle.write(Buffer.alloc(lineBytes, 0x61));
    await handle.close();
    const records = await readAll(path);
    expect(records.at(-1)).toMatchObject({
      kind: 'bad-line',
      line: 5,
      reason: 'torn tail (incomplete last line)',
    });
    const log = (await openFileEventLog(path, { durability: 'none' }))._unsafeUnwrap();
    expect(log.tornTail).toMatchObject({ line: 5, bytes: lineBytes });
    await log.close();
    expect((await readAll(path)).map((r) => r.kind)).toEqual(['entry', 'entry', 'entry', 'entry']);
    figures.add('overlong lines read', 2);
  });

  it.runIf(STRESS)(
    'a 1 GB line (sparse file, stress only) behaves the same',
    async (context) => {
      const dir = await tempDir();
      const stats = await statfs(dir);
      const free = stats.bavail * stats.bsize;
      if (free < 3 * 1024 * MiB) {
        console.log(`[signfold figures] limits: 1 GB line skipped, only ${free} bytes free`);
        context.skip();
        return;
      }
      // A sparse file: 1 GiB of NUL bytes (a hole, costing no disk), then the valid lines.
      const path = join(dir, 'one-gigabyte.ndjson');
      const lineBytes = 1024 * MiB;
      const handle = await open(path, 'w');
      await handle.truncate(lineBytes);
      const tail = Buffer.from(`\n${VALID_LINES.join('\n')}\n`);
      await handle.write(tail, 0, tail.length, lineBytes);
      await handle.close();
      await checkLongLine(path, lineBytes, '1 GB line');
      figures.add('overlong lines read');
    },
    300_000,
  );

  it('maxLineBytes is configurable; lines just over it are bad lines, at it are read', async () => {
    const path = join(await tempDir(), 'limit.ndjson');
    const line = VALID_LINES[3] as string;
    const bytes = Buffer.byteLength(line);
    await writeFile(path, `${line}\n${line}x\n${line}\n`);
    const atLimit = await readAll(path, { maxLineBytes: bytes });
    expect(atLimit.map((r) => r.kind)).toEqual(['entry', 'bad-line', 'entry']);
    expect(atLimit[1]).toMatchObject({
      reason: `line too long (${bytes + 1} bytes > limit ${bytes})`,
    });
    const below = await readAll(path, { maxLineBytes: bytes - 1 });
    expect(below.map((r) => r.kind)).toEqual(['bad-line', 'bad-line', 'bad-line']);
    // Chunks smaller than a line change nothing.
    expect(await readAll(path, { maxLineBytes: bytes, chunkBytes: 7 })).toEqual(atLimit);
    for (const maxLineBytes of [0, -1, 1.5, Number.NaN]) {
      await expect(readAll(path, { maxLineBytes })).rejects.toThrow(RangeError);
    }
    figures.add('inputs tried', 8);
  });

  it("decodeEventJson's maxLength (default 1 MiB of UTF-16 units) is checked before parsing", () => {
    expect(DEFAULT_MAX_EVENT_LENGTH).toBe(MiB);
    const event = JSON.stringify(encodeEvent(buildEvent('participant-viewed')));
    const padded = event + ' '.repeat(DEFAULT_MAX_EVENT_LENGTH - event.length);
    expect(decodeEventJson(padded).isOk()).toBe(true);
    expect(decodeEventJson(`${padded} `)._unsafeUnwrapErr()).toMatchObject({
      kind: 'too-large',
      path: '',
    });
    expect(decodeEventJson(event, { maxLength: event.length - 1 })._unsafeUnwrapErr().kind).toBe(
      'too-large',
    );
    figures.add('inputs tried', 3);
  });
});

describe('files that are not text', () => {
  it('a file of random bytes: bad lines, quarantined, never a crash', async () => {
    const dir = await tempDir();
    const path = join(dir, 'random.bin');
    const size = count(4, 64) * MiB;
    const random = mulberry32(42);
    const bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i += 4) bytes.writeUInt32LE(Math.floor(random() * 2 ** 32), i);
    await writeFile(path, bytes);
    const records = await readAll(path);
    expect(records.length).toBeGreaterThan(1000);
    expect(records.every((r) => r.kind === 'bad-line')).toBe(true);
    // No entry: every bad line stands before position 1, none holds it.
    expect(records.every((r) => r.position === 1)).toBe(true);
    const projector = await replayFile(path);
    // The unterminated last line is an incomplete tail, not quarantined.
    const torn = records.filter((r) => r.kind === 'bad-line' && r.tornTail === true);
    expect(projector.quarantine()).toHaveLength(records.length - torn.length);
    expect(projector.incompleteTail()?.position).toBe(torn[0]?.position);
    expect(projector.stats().applied).toBe(0);
    figures.add('bytes fuzzed', size);
    figures.add('bad lines reported', records.length);
  });

  it('invalid UTF-8 of every kind is reported per line; the valid lines around it are applied', async () => {
    const path = join(await tempDir(), 'invalid-utf8.ndjson');
    const invalid = [
      [0xff],
      [0xfe, 0xff], // a UTF-16 byte order mark
      [0xc0, 0x80], // overlong NUL
      [0xe0, 0x80, 0x80], // overlong
      [0xed, 0xa0, 0x80], // an encoded surrogate (CESU-8)
      [0xf4, 0x90, 0x80, 0x80], // beyond U+10FFFF
      [0x80], // lone continuation byte
      [0xe2, 0x82], // truncated sequence
    ];
    const parts: Buffer[] = [];
    for (const sequence of invalid) {
      parts.push(Buffer.from(`${VALID_LINES[0]}\n{"type":"template-activated","templateName":"`));
      parts.push(Buffer.from(sequence), Buffer.from('"}\n'));
    }
    await writeFile(path, Buffer.concat(parts));
    const records = await readAll(path);
    expect(records.map((r) => (r.kind === 'bad-line' ? r.reason : 'entry'))).toEqual(
      invalid.flatMap(() => ['entry', 'invalid UTF-8']),
    );
    const projector = await replayFile(path);
    expect(projector.quarantine().map((q) => q.reason.message)).toEqual(
      invalid.map(() => 'invalid UTF-8'),
    );
    figures.add('inputs tried', invalid.length);
  });

  it(`garbage lines never corrupt their neighbours (${count(100, 2000)} random files)`, async () => {
    const dir = await tempDir();
    const garbage = fc
      .uint8Array({ minLength: 1, maxLength: 300 })
      .map((bytes) => Buffer.from(bytes.map((b) => (b === 0x0a ? 0x00 : b))));
    let file = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.constantFrom(...VALID_LINES.keys()), garbage), {
          minLength: 1,
          maxLength: 30,
        }),
        fc.integer({ min: 16, max: 4096 }),
        fc.boolean(),
        async (lines, chunkBytes, crlf) => {
          const eol = crlf ? '\r\n' : '\n';
          const path = join(dir, `garbage-${file++}.ndjson`);
          const content = Buffer.concat(
            lines.flatMap((line) => [
              typeof line === 'number' ? Buffer.from(VALID_LINES[line] as string) : line,
              Buffer.from(eol),
            ]),
          );
          await writeFile(path, content);
          const records = await readAll(path, { chunkBytes, maxLineBytes: 1024 });
          // Each valid line is an entry at its own line number, with its event intact.
          lines.forEach((line, index) => {
            if (typeof line !== 'number') return;
            const record = records.find((r) => r.line === index + 1);
            expect(record?.kind).toBe('entry');
            if (record?.kind === 'entry') {
              expect(record.event).toEqual(JSON.parse(VALID_LINES[line] as string));
            }
          });
          // Entries hold increasing positions; a bad line shares the next entry's.
          const positions = records.map((r) => r.position);
          expect(positions.every((p, i) => i === 0 || p >= (positions[i - 1] as number))).toBe(
            true,
          );
          const entries = records.filter((r) => r.kind === 'entry').map((r) => r.position);
          expect(entries.every((p, i) => i === 0 || p > (entries[i - 1] as number))).toBe(true);
          figures.add('bytes fuzzed', content.length);
        },
      ),
      { numRuns: count(100, 2000) },
    );
    figures.add('cases: random garbage/valid line files', count(100, 2000));
  });
});
