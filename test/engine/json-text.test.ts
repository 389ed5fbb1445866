/**
 * JSON text appended as it is: the file and memory logs store the text a
 * sender wrote, not `JSON.stringify` of its parsed value (which turns 1e400
 * into null and 12345678901234567890 into 12345678901234567000). A raw CR or
 * LF (whitespace between tokens) becomes a space, so a pretty-printed body
 * stays one NDJSON line; an unpaired surrogate becomes its escape.
 * (The PostgreSQL log: test/webhooks/postgres-handler.test.ts.)
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeEvent } from '../../src/core/events/decode-event.js';
import type { BatchEventLog, LogRecord } from '../../src/engine/event-log.js';
import { jsonText } from '../../src/engine/json-text.js';
import { openFileEventLog } from '../../src/store/file-event-log.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { removeTempDirs, tempDir } from '../cli/cli-helpers.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';

afterAll(removeTempDirs);

const BODIES = [
  '{"type":"template-deleted","companyId":1e400}',
  '{"type":"template-deleted","companyId":12345678901234567890}',
  '{"type":"template-deleted","templateName":"\\u00e9t\\u00e9 \\ud83d\\ude00 \\u2028"}',
  '{\r\n  "type": "template-deleted",\r\n  "nested": {\n    "list": [1,\n 2]\n  }\r\n}\r\n',
  '  [1e-400, -0, 0.10000000000000000001]  ',
];

const one = (body: string) => body.replace(/[\r\n]/g, ' ');

/** The text between `"event":` and the envelope's closing brace. */
const eventTextOf = (raw: string): string => raw.slice(raw.indexOf('"event":') + 8, -1);

const readAll = async (records: AsyncIterable<readonly LogRecord[]>): Promise<LogRecord[]> => {
  const all: LogRecord[] = [];
  for await (const batch of records) all.push(...batch);
  return all;
};

describe('jsonText', () => {
  it('refuses what is not JSON, with the parser message, and never throws', () => {
    expect(jsonText('{"a":').isErr()).toBe(true);
    expect(jsonText('\uFEFF{}')._unsafeUnwrapErr().kind).toBe('not-json');
    expect(jsonText('').isErr()).toBe(true);
    expect(jsonText(undefined as unknown as string).isErr()).toBe(true);
  });

  it('keeps the text, CR and LF as spaces, unpaired surrogates escaped (same value)', () => {
    for (const body of BODIES) {
      const text = jsonText(body)._unsafeUnwrap();
      expect(text.text).toBe(one(body));
      expect(text.value).toEqual(JSON.parse(body));
    }
    const lone = jsonText('{"a":"x\ud800y\udc00"}')._unsafeUnwrap();
    expect(lone.text).toBe('{"a":"x\\ud800y\\udc00"}');
    expect(lone.value).toEqual({ a: 'x\ud800y\udc00' });
    // A log that knows only JSON.stringify still stores the parsed value.
    expect(JSON.stringify({ event: lone })).toBe(
      JSON.stringify({ event: { a: 'x\ud800y\udc00' } }),
    );
  });
});

describe.each([
  ['memory', async () => createMemoryEventLog() as BatchEventLog],
  [
    'file',
    async () =>
      (
        await openFileEventLog(join(await tempDir(), 'events.ndjson'))
      )._unsafeUnwrap() as BatchEventLog,
  ],
])('the %s log stores appended JSON text as it is', (_, open) => {
  it('1e400, big integers, escapes and pretty-printing round-trip as text', async () => {
    const log = await open();
    for (const [i, body] of BODIES.entries()) {
      const outcome = await log.append(jsonText(body)._unsafeUnwrap(), { deliveryId: `d-${i}` });
      expect(outcome._unsafeUnwrap()).toMatchObject({ kind: 'appended', position: i + 1 });
    }
    const records = await readAll(log.read());
    await log.close();
    expect(records.map((r) => r.kind)).toEqual(BODIES.map(() => 'entry'));
    expect(records.map((r) => eventTextOf(r.raw))).toEqual(BODIES.map(one));
    // Read back, 1e400 is the non-finite number the decoder names, not null.
    const first = records[0];
    const decoded = first?.kind === 'entry' ? decodeEvent(first.event) : undefined;
    expect(decoded?._unsafeUnwrapErr().message).toMatch(/non-finite/);
  });

  it('any JSON text, however formatted, reads back as the same value on one line', async () => {
    const log = await open();
    const texts: string[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue(),
        fc.constantFrom(undefined, 1, '\t', '\r\n  '),
        async (value, space) => {
          const body = JSON.stringify(value, null, space);
          texts.push(body);
          (await log.append(jsonText(body)._unsafeUnwrap()))._unsafeUnwrap();
        },
      ),
      { numRuns: count(50, 500) },
    );
    const records = await readAll(log.read());
    await log.close();
    expect(records.map((r) => (r.kind === 'entry' ? r.event : r.reason))).toEqual(
      texts.map((t) => JSON.parse(t)),
    );
    expect(records.map((r) => eventTextOf(r.raw))).toEqual(texts.map(one));
  });
});

describe('the file log, read by the file reader', () => {
  it('gives the stored text back byte for byte', async () => {
    const path = join(await tempDir(), 'events.ndjson');
    const log = (await openFileEventLog(path))._unsafeUnwrap();
    for (const body of BODIES) (await log.append(jsonText(body)._unsafeUnwrap()))._unsafeUnwrap();
    await log.close();
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines).toHaveLength(BODIES.length + 1);
    const records = await readAll(readFileEventLog(path));
    expect(records.map((r) => eventTextOf(r.raw))).toEqual(BODIES.map(one));
    // Without jsonText the same values lose what the sender wrote.
    expect(JSON.stringify(JSON.parse(BODIES[0] ?? ''))).toBe(
      '{"type":"template-deleted","companyId":null}',
    );
  });
});
