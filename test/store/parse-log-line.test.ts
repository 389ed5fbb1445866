/**
 * `parseLogLine` (issue 19, "Using it from code"): one stored line, out of its
 * file, gives the record the file reader gives for it, by the same rules
 * (envelope or bare event, blank and whitespace lines, CRLF, positions).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import type { LogRecord } from '../../src/engine/event-log.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { parseLogLine } from '../../src/store/parse-log-line.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { HOSTILE_CORPUS } from '../support/hostile-corpus.js';
import { fileWith, readAll, removeTempDirs } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

const envelope = (position: number, event: unknown, deliveryId?: string): string =>
  JSON.stringify({ position, receivedAt: '2026-01-01T00:00:00.000Z', deliveryId, event });

/** Lines a log may hold, good and bad: the kinds the reader tells apart. */
const lineArb: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: -2, max: 60 }).map((p) => envelope(p, buildEvent('participant-viewed'))),
  fc
    .integer({ min: 1, max: 60 })
    .map((p) => envelope(p, buildEvent('sign-request-sent'), `d-${p}`)),
  fc.constant(JSON.stringify(buildEvent('template-activated'))),
  fc.constant('{ "type" : "template-deleted", "companyId": 1 }'),
  fc.constant('{"position":"7","event":{}}'),
  fc.constantFrom(
    '',
    '   ',
    '\t',
    ' \r',
    '\u00a0',
    '\u2028',
    '\u000c',
    '\ufeff{}',
    'null',
    '[1]',
    '42',
  ),
  fc.constantFrom('{"position":3', 'garbage', '{"a":1}}', '"text"'),
  fc.string({ maxLength: 12 }).filter((s) => !s.includes('\n')),
);

/** The record of the reader for each line number, as plain objects. */
const readerRecords = async (content: string): Promise<Map<number, LogRecord>> => {
  const records = await readAll(readFileEventLog(await fileWith(content)));
  return new Map(records.map((record) => [record.line ?? 0, { ...record, raw: record.raw }]));
};

describe('parseLogLine', () => {
  it('agrees with the file reader on every line, given the line number and the last entry', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(lineArb, fc.boolean()), { minLength: 1, maxLength: 25 }),
        async (drawn) => {
          // CRLF line ends on some lines: the CR belongs to the line break.
          const lines = drawn.map(([line, crlf]) => (crlf ? `${line}\r` : line));
          const byLine = await readerRecords(`${lines.join('\n')}\n`);
          let lastPosition = 0;
          lines.forEach((line, index) => {
            const parsed = parseLogLine(line, { line: index + 1, lastPosition });
            expect(parsed, `line ${index + 1}: ${JSON.stringify(line)}`).toEqual(
              byLine.get(index + 1),
            );
            if (parsed?.kind === 'entry') lastPosition = parsed.position;
          });
        },
      ),
      { numRuns: count(60, 1000) },
    );
  });

  it('agrees with the file reader on every line of the shared hostile corpus', async () => {
    const corpus = HOSTILE_CORPUS;
    const bytes = readFileSync(corpus);
    const records = await readAll(readFileEventLog(corpus));
    const byLine = new Map(
      records.map((record) => [record.line ?? 0, { ...record, raw: record.raw }]),
    );
    // ignoreBOM: keep a byte order mark, which the decoder would otherwise drop from every line.
    const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    let lastPosition = 0;
    let compared = 0;
    let start = 0;
    for (let lineNo = 1; start < bytes.length; lineNo += 1) {
      const end = bytes.indexOf(0x0a, start) === -1 ? bytes.length : bytes.indexOf(0x0a, start);
      let text: string | undefined;
      try {
        text = utf8.decode(bytes.subarray(start, end));
      } catch {
        text = undefined; // invalid UTF-8 is the reader's to judge: a string has none
      }
      start = end + 1;
      const expected = byLine.get(lineNo);
      if (text !== undefined) {
        expect(parseLogLine(text, { line: lineNo, lastPosition }), `line ${lineNo}`).toEqual(
          expected,
        );
        compared += 1;
      }
      if (expected?.kind === 'entry') lastPosition = expected.position;
    }
    expect(compared).toBeGreaterThan(40);
  });

  it('reads an envelope and a bare event, with their own positions', () => {
    const line = envelope(8, buildEvent('template-deleted'), 'abc');
    expect(parseLogLine(line)).toEqual({
      kind: 'entry',
      position: 8,
      line: 1,
      receivedAt: '2026-01-01T00:00:00.000Z',
      deliveryId: 'abc',
      event: buildEvent('template-deleted'),
      raw: line,
    });
    const bare = JSON.stringify(buildEvent('template-deleted'));
    expect(parseLogLine(bare, { line: 5, lastPosition: 9 })).toMatchObject({
      kind: 'entry',
      position: 10,
      line: 5,
      receivedAt: undefined,
      raw: bare,
    });
  });

  it('drops one trailing newline (LF or CRLF) and calls a line holding another one a bad line', () => {
    const bare = JSON.stringify(buildEvent('template-deleted'));
    expect(parseLogLine(`${bare}\r\n`)).toMatchObject({ kind: 'entry', raw: bare });
    expect(parseLogLine(`${bare}\n${bare}`)).toMatchObject({
      kind: 'bad-line',
      position: 1,
      reason: 'not one line: it holds a line feed (U+000A)',
    });
  });

  it('gives nothing for a blank line and a bad line for other whitespace', () => {
    expect(parseLogLine(' \t\r')).toBeUndefined();
    expect(parseLogLine('\u00a0', { lastPosition: 3 })).toEqual({
      kind: 'bad-line',
      position: 4,
      line: 1,
      raw: '\u00a0',
      reason: 'invalid JSON: whitespace JSON does not allow (U+00A0)',
      sharesPosition: true,
    });
  });

  it('takes a context it cannot use as the default, and never throws', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.oneof(fc.double(), fc.integer()),
        fc.oneof(fc.double(), fc.integer()),
        (text, line, lastPosition) => {
          const record = parseLogLine(text, { line, lastPosition });
          if (record === undefined) return;
          expect(Number.isSafeInteger(record.position) && record.position >= 1).toBe(true);
          expect(Number.isSafeInteger(record.line) && (record.line ?? 0) >= 1).toBe(true);
        },
      ),
      { numRuns: count(200, 5000) },
    );
  });
});
