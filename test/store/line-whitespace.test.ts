/**
 * Blank means JSON's whitespace only (issue 21, finding 5): a line of any
 * other whitespace is a bad line, never skipped; and the CR of a CRLF line
 * end is no part of a line, its messages or its preview (finding 8).
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createProjector } from '../../src/engine/projector.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import {
  fileWith,
  openLog,
  readAll,
  removeTempDirs,
  summary,
  tempDir,
} from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

const EVENT = '{"type":"a"}';

/** Whitespace that `trim()` drops but JSON does not allow, by name. */
const NOT_JSON_WHITESPACE: readonly (readonly [string, string])[] = [
  ['\u00a0', 'U+00A0'], // no-break space
  ['\f', 'U+000C'], // form feed
  ['\v', 'U+000B'], // vertical tab
  ['\u2028', 'U+2028'], // line separator
  ['\u2029', 'U+2029'], // paragraph separator
  ['\u3000', 'U+3000'], // ideographic space
  ['\u1680', 'U+1680'], // ogham space mark
  ['\u2007', 'U+2007'], // figure space
  ['\u202f', 'U+202F'], // narrow no-break space
  ['\ufeff', 'U+FEFF'], // a byte order mark
];

describe('lines of whitespace', () => {
  it.each(NOT_JSON_WHITESPACE.map(([space, name]) => [name, space] as const))(
    'a line of %s is a bad line naming it',
    async (name, space) => {
      const path = await fileWith(`${EVENT}\n${space}\n ${space}\t\n${EVENT}\n`);
      for (const chunkBytes of [1, 3, 1 << 20]) {
        const records = summary(await readAll(readFileEventLog(path, { chunkBytes })));
        expect(records.map((r) => [r.kind, r.position, r.line])).toEqual([
          ['entry', 1, 1],
          ['bad', 2, 2],
          ['bad', 2, 3],
          ['entry', 4, 4],
        ]);
        const reasons = records.filter((r) => r.kind === 'bad').map((r) => r.reason);
        const named = `invalid JSON: whitespace JSON does not allow (${name})`;
        expect(reasons).toEqual([
          name === 'U+FEFF'
            ? 'invalid JSON: a byte order mark (U+FEFF) is allowed only at the start of the file'
            : named,
          named,
        ]);
      }
    },
  );

  it('skips lines of space, tab and CR only, which still count as lines', async () => {
    const path = await fileWith(`\n \n\t\n\r\n \t\r \n${EVENT}\n`);
    expect(summary(await readAll(readFileEventLog(path)))).toEqual([
      { kind: 'entry', position: 6, line: 6, event: { type: 'a' } },
    ]);
  });

  it('a byte order mark passes at the start of the file only', async () => {
    const path = await fileWith(`\ufeff${EVENT}\n\ufeff${EVENT}\n\ufeff\n`);
    const records = summary(await readAll(readFileEventLog(path)));
    expect(records).toEqual([
      { kind: 'entry', position: 1, line: 1, event: { type: 'a' } },
      {
        kind: 'bad',
        position: 2,
        line: 2,
        reason: 'invalid JSON: a byte order mark (U+FEFF) is allowed only at the start of the file',
      },
      {
        kind: 'bad',
        position: 2,
        line: 3,
        reason: 'invalid JSON: a byte order mark (U+FEFF) is allowed only at the start of the file',
      },
    ]);
  });

  it('reports every line that is not blank by JSON rule: none is lost (property)', async () => {
    const lineArb = fc.oneof(
      fc.constantFrom(EVENT, '', ' ', '\t', '\r', 'x', '{'),
      fc.constantFrom(...NOT_JSON_WHITESPACE.map(([space]) => space)),
      fc.string({
        unit: fc.constantFrom(' ', '\t', '\u00a0', '\f', '\u2028', '\u3000', '\ufeff', 'a'),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(lineArb, { maxLength: 20 }), async (lines) => {
        const path = await fileWith(lines.map((line) => `${line}\n`).join(''));
        const records = await readAll(readFileEventLog(path));
        // Line 1 may start with a byte order mark, which is dropped.
        const blank = (line: string, i: number) =>
          /^[ \t\r]*$/.test(i === 0 ? line.replace(/^\ufeff/, '') : line);
        const expected = lines.flatMap((line, i) => (blank(line, i) ? [] : [i + 1]));
        expect(records.map((r) => r.line)).toEqual(expected);
        const projector = createProjector();
        await projector.replay({ read: (o) => readFileEventLog(path, o) });
        const { applied, noOps, invalid, conflicts } = projector.stats();
        expect(applied + noOps + invalid + conflicts).toBe(expected.length);
      }),
      { numRuns: 100 },
    );
  });
});

describe('the append path', () => {
  it('stores such whitespace inside values and reads it back, never as a bad line', async () => {
    const path = join(await tempDir(), 'events.ndjson');
    const values = NOT_JSON_WHITESPACE.map(([space]) => ({
      type: `${space}a${space}`,
      [space]: [space, `\r${space}\n`],
    }));
    const log = await openLog(path);
    for (const [i, value] of values.entries()) {
      expect(
        (await log.append(value, { deliveryId: `${NOT_JSON_WHITESPACE[i]?.[0]}` })).isOk(),
      ).toBe(true);
    }
    await log.close();
    const reopened = await openLog(path);
    const records = await readAll(reopened.read());
    await reopened.close();
    expect(
      records.map((r) => (r.kind === 'entry' ? [r.position, r.event, r.deliveryId] : r)),
    ).toEqual(values.map((value, i) => [i + 1, value, NOT_JSON_WHITESPACE[i]?.[0]]));
  });
});

describe('CRLF line ends', () => {
  it('keep no CR in a bad line, its reason or an entry', async () => {
    const path = await fileWith(
      Buffer.concat([
        Buffer.from(
          `${EVENT}\r\ngarbage\r\n42\r\n{"type":\r\n\u00a0\r\n{"position":1,"event":{}}\r\n`,
        ),
        Buffer.from([0x7b, 0xff, 0x7d, 0x0d, 0x0a]),
        Buffer.from(`${EVENT}\r\n`),
      ]),
    );
    const records = await readAll(readFileEventLog(path));
    expect(records.map((r) => [r.kind, r.raw])).toEqual([
      ['entry', EVENT],
      ['bad-line', 'garbage'],
      ['bad-line', '42'],
      ['bad-line', '{"type":'],
      ['bad-line', '\u00a0'],
      ['bad-line', '{"position":1,"event":{}}'],
      ['bad-line', '{\ufffd}'],
      ['entry', EVENT],
    ]);
    expect(records.map((r) => (r.kind === 'bad-line' ? r.reason : 'entry'))).toEqual([
      'entry',
      `invalid JSON: Unexpected token 'g', "garbage" is not valid JSON`,
      'not a JSON object (got number)',
      expect.stringMatching(/^invalid JSON: /),
      'invalid JSON: whitespace JSON does not allow (U+00A0)',
      'envelope position 1 is not greater than the previous position 1',
      'invalid UTF-8',
      'entry',
    ]);
    for (const record of records) {
      expect(record.raw).not.toContain('\r');
      if (record.kind === 'bad-line') expect(record.reason).not.toContain('\r');
    }
  });
});
