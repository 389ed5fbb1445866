/**
 * The reader's byte-level fast path (LineScanner) must be invisible: whenever
 * it parses a line, the value equals `JSON.parse` of that line, member order
 * included; on anything else it declines, and the records a file read yields
 * are the same with and without it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { generateEvents, writeNdjson } from '../../bench/generate-stream.js';
import { decodeEvent } from '../../src/core/events/decode-event.js';
import { MEMBER_KINDS, WIRE_PARTICIPANT_NAME } from '../../src/core/events/event-members.js';
import { initialState } from '../../src/core/projections/projection-state.js';
import { fold } from '../../src/core/projections/reduce.js';
import type { LogRecord } from '../../src/engine/event-log.js';
import { createProjector } from '../../src/engine/projector.js';
import { nodeFileIO } from '../../src/store/file-io.js';
import { streamRecords } from '../../src/store/file-record-stream.js';
import { LineScanner } from '../../src/store/line-scanner.js';
import { rawStreamArb } from '../support/engine-arbitraries.js';
import { readAll, removeTempDirs, tempDir } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

const KNOWN = [
  'type',
  ...Object.keys(MEMBER_KINDS),
  WIRE_PARTICIPANT_NAME,
  'position',
  'receivedAt',
  'deliveryId',
  'event',
];

// One scanner for every case, so its table of shared strings fills, collides and evicts.
const scanner = new LineScanner();

/** Scans `text` as a whole line: the value, or undefined if declined or not the whole line. */
const scanLine = (bytes: Buffer): Record<string, unknown> | undefined => {
  const value = scanner.scan(bytes, 0, bytes.length);
  return value !== undefined && scanner.end === bytes.length ? value : undefined;
};

/**
 * Agrees with JSON.parse: same value, same member order (compared through JSON.stringify), for the
 * line from `start` to the end of `bytes`, scanned with `using` (the shared scanner by default).
 */
const expectSameAsJsonParse = (bytes: Buffer, start = 0, using = scanner): boolean => {
  const value = using.scan(bytes, start, bytes.length);
  if (value === undefined) return false;
  const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(start, using.end));
  const parsed: unknown = JSON.parse(text);
  expect(value).toEqual(parsed);
  // Stronger, and what lazily built `raw` texts rely on: the line is exactly JSON.stringify of the value.
  expect(JSON.stringify(value)).toBe(text);
  expect(using.ascii).toBe([...text].every((c) => c.charCodeAt(0) < 0x80));
  return true;
};

const plainString = fc.oneof(
  fc.constantFrom('Ada Lovelace', 'Zoë Müller', 'Chloé García', '', 'a'.repeat(60), '日本語'),
  fc.string({ maxLength: 70 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);
const jsonLeaf = fc.oneof(
  plainString,
  fc.integer({ min: 0, max: 999_999_999_999_999 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(true, false, null, -0, 1e21, 0.5),
);
const memberName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...KNOWN) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'typ', 'types', 'x') },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);
const flatObject = fc.array(fc.tuple(memberName, jsonLeaf), { maxLength: 18 });
const lineValue = fc.oneof(
  flatObject,
  fc.tuple(flatObject, fc.integer({ min: 0, max: 17 }), flatObject).map(([outer, at, inner]) => {
    const members: [string, unknown][] = [...outer];
    members.splice(Math.min(at, members.length), 0, ['event', Object.fromEntries(inner)]);
    return members;
  }),
);
/** JSON text with members in the given order, duplicates included (JSON.stringify cannot write those). */
const jsonText = (members: readonly (readonly [string, unknown])[]): string =>
  `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v !== null && typeof v === 'object' ? jsonText(Object.entries(v)) : JSON.stringify(v)}`).join(',')}}`;

describe('LineScanner', () => {
  it('parses exactly what JSON.parse parses, or declines', () => {
    let accepted = 0;
    fc.assert(
      fc.property(lineValue, (members) => {
        const text = jsonText(members);
        const bytes = Buffer.from(text, 'utf8');
        if (expectSameAsJsonParse(bytes)) {
          accepted += 1;
          expect(scanner.end).toBe(bytes.length);
        }
      }),
      { numRuns: 3000 },
    );
    // Not vacuous: many generated lines took the fast path (about 10 % of them).
    expect(accepted).toBeGreaterThan(100);
  });

  it('parses the same before and after its table of shared strings grows (at 4,096 lines)', () => {
    const own = new LineScanner();
    const names = Array.from({ length: 50 }, (_, i) => `Name ${i} Zoë`);
    for (let line = 0; line < 6000; line += 1) {
      const text = JSON.stringify({
        type: 'participant-signed',
        participantName: names[(line * 7) % names.length],
        signRequestName: `Request ${line % 300}`,
        roleName: line % 2 === 0 ? 'Signer' : 'Approver',
      });
      const bytes = Buffer.from(text);
      expect(own.scan(bytes, 0, bytes.length)).toEqual(JSON.parse(text));
      expect(own.end).toBe(bytes.length);
    }
  });

  it('reads strings four bytes at a time, and any byte at any offset of a word gets its own look', () => {
    // Each kind of byte a word test must catch (an escape, a control, a multi-byte letter,
    // invalid UTF-8), and DEL, which JSON takes as it is, at every offset from the string's start
    // and from the buffer's.
    const kinds: readonly (readonly number[])[] = [
      [0x5c, 0x22],
      [0x5c, 0x6e],
      [0x00],
      [0x1f],
      [0x7f],
      [0xc3, 0xab],
      [0xe6, 0x97, 0xa5],
      [0xc3],
      [0xff],
    ];
    const own = new LineScanner();
    let accepted = 0;
    for (const kind of kinds) {
      for (let offset = 0; offset < 9; offset += 1) {
        for (let shift = 0; shift < 4; shift += 1) {
          const name = [
            ...Buffer.from('Ada Lovelace'.slice(0, offset)),
            ...kind,
            ...Buffer.from('xyz'),
          ];
          const line = Buffer.from([
            ...Buffer.from('{"type":"a","roleName":"'),
            ...name,
            ...Buffer.from('","ownerName":"'),
            ...name,
            ...Buffer.from('"}'),
          ]);
          // At `shift` bytes into a larger buffer: words straddle the buffer's own alignment.
          const buf = Buffer.alloc(line.length + shift, 0x20);
          line.copy(buf, shift);
          if (!expectSameAsJsonParse(buf, shift, own)) continue;
          accepted += 1;
          expect(own.end).toBe(buf.length);
        }
      }
    }
    // Plain letters around a multi-byte one or DEL are read, not declined.
    expect(accepted).toBeGreaterThanOrEqual(3 * 9 * 4);
  });

  it('never declines a compact event line of known members with plain values', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...KNOWN.filter((k) => k !== 'event')), { maxLength: 18 }),
        fc.array(
          fc.oneof(
            fc.stringMatching(/^[ -!#-[\]-~]{0,40}$/),
            fc.constantFrom('Zoë Müller', 'Björn Tanaka'),
            fc.integer({ min: 0, max: 2 ** 40 }),
          ),
          { minLength: 18, maxLength: 18 },
        ),
        (names, values) => {
          const text = jsonText(names.map((n, i) => [n, values[i]]));
          // A scanner of its own: the shared one may have learned its 1,024 member orders from the
          // other cases already, and past them it declines new orders by design.
          const bytes = Buffer.from(text);
          const own = new LineScanner();
          const value = own.scan(bytes, 0, bytes.length);
          expect(own.end).toBe(bytes.length);
          expect(value).toEqual(JSON.parse(text));
        },
      ),
    );
  });

  it('is total on hostile bytes: never throws, and anything it parses is what JSON.parse gives', () => {
    const event =
      '{"type":"participant-viewed","companyId":1,"signRequestId":7,"signRequestName":"NDA - Zoë","participantId":3,"partcipantName":"Zoë","roleId":2,"roleName":"Signer","senderId":5,"senderName":"Ada","ownerId":5,"ownerName":"Ada"}';
    const base = Buffer.from(
      `{"position":9,"receivedAt":"2025-01-01T00:00:00.000Z","event":${event}}`,
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.nat(base.length - 1), fc.integer({ min: 0, max: 255 }), fc.boolean()),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        (edits) => {
          const bytes = Buffer.from(base);
          let mutated = bytes;
          for (const [at, byte, insert] of edits) {
            mutated = insert
              ? Buffer.concat([mutated.subarray(0, at), Buffer.from([byte]), mutated.subarray(at)])
              : Buffer.concat([
                  mutated.subarray(0, at),
                  Buffer.from([byte]),
                  mutated.subarray(at + 1),
                ]);
          }
          const value = scanLine(mutated);
          if (value === undefined) return;
          // Whatever it accepted must be valid UTF-8 and JSON, and agree with JSON.parse.
          expect(expectSameAsJsonParse(mutated)).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
    expect(
      scanLine(Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('{"type":"a"}')])),
    ).toBeUndefined();
    expect(scanLine(Buffer.from('{"type":"\\u0061"}'))).toBeUndefined();
    expect(scanLine(Buffer.from('{"type":"a","type":"b"}'))).toBeUndefined();
    expect(scanLine(Buffer.from('{"__proto__":{"type":"a"}}'))).toBeUndefined();
    expect(
      scanLine(Buffer.from([...Buffer.from('{"type":"'), 0xc3, 0x28, 0x22, 0x7d])),
    ).toBeUndefined();
  });
});

/** Reads a file with and without the fast path. */
const readBoth = async (path: string, chunkBytes: number) => {
  const read = async (scan: boolean): Promise<readonly LogRecord[]> => {
    const handle = await nodeFileIO.open(path, 'read');
    try {
      return await readAll(
        streamRecords(handle, { maxLineBytes: 600, chunkBytes, fromPosition: 1, scan }),
      );
    } finally {
      await handle.close();
    }
  };
  return { fast: await read(true), reference: await read(false) };
};

describe('file reads with the fast path', () => {
  it('yield the same records as decoding and JSON.parse-ing every line', async () => {
    const dir = await tempDir();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        rawStreamArb({ badLines: true, maxLength: 30 }),
        fc.boolean(),
        fc.integer({ min: 16, max: 2048 }),
        async (items, envelope, chunkBytes) => {
          n += 1;
          const path = join(dir, `stream-${n}.ndjson`);
          const lines = items.map((item, i) => {
            if (item.kind === 'bad-line') return item.text;
            const value = JSON.stringify(item.value) ?? 'null';
            return envelope ? `{"position":${i + 1},"receivedAt":"x","event":${value}}` : value;
          });
          await writeFile(path, `${lines.join('\n')}\n`);
          const { fast, reference } = await readBoth(path, chunkBytes);
          expect(fast).toEqual(reference);
          expect(JSON.stringify(fast)).toBe(JSON.stringify(reference));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('replay to the same projections as the reference fold of the same events', async () => {
    const dir = await tempDir();
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.integer({ min: 1, max: 60 }),
        fc.boolean(),
        async (seed, concurrent, envelope) => {
          const events = [...generateEvents({ seed, signRequests: 60, concurrent })];
          const path = join(dir, `generated-${seed}-${concurrent}-${envelope}.ndjson`);
          writeNdjson(path, events, { envelope, seed });
          const replayWith = async (scan: boolean) => {
            const projector = createProjector({ audit: false });
            const handle = await nodeFileIO.open(path, 'read');
            try {
              const read = () =>
                streamRecords(handle, {
                  maxLineBytes: 1 << 20,
                  chunkBytes: 4096,
                  fromPosition: 1,
                  scan,
                });
              (await projector.replay({ read }))._unsafeUnwrap();
            } finally {
              await handle.close();
            }
            return projector;
          };
          const fast = await replayWith(true);
          // The envelopes' times, read with JSON.parse (not the scanner under test).
          const times = (await readFile(path, 'utf8'))
            .split('\n')
            .filter((line) => line !== '')
            .map((line) =>
              envelope ? (JSON.parse(line) as { receivedAt?: string }).receivedAt : undefined,
            );
          const reference = fold(
            initialState(),
            events.map((e) => decodeEvent(e)._unsafeUnwrap()),
            times,
          );
          expect(fast.state()).toEqual(reference.state);
          expect(fast.quarantine()).toEqual([]);
          expect(reference.conflicts).toEqual([]);
          const slow = await replayWith(false);
          expect(fast.stats()).toEqual(slow.stats());
          expect(fast.state()).toEqual(slow.state());
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('LineScanner on a hostile variety of member orders', () => {
  it('learns a bounded number of shapes, then declines new ones (JSON.parse takes over)', () => {
    const fresh = new LineScanner();
    const names = KNOWN.filter((k) => k !== 'event');
    let declined = 0;
    // 3,000 distinct member orders: far more than any real log has.
    for (let i = 0; i < 3000; i += 1) {
      const order = [...names].sort(
        (a, b) => ((a.length * 31 + i * 7) % 13) - ((b.length * 17 + i) % 11),
      );
      const text = jsonText(order.slice(0, 3 + (i % 15)).map((n, j) => [n, j]));
      const bytes = Buffer.from(text);
      const value = fresh.scan(bytes, 0, bytes.length);
      if (value === undefined) declined += 1;
      else expect(value).toEqual(JSON.parse(text));
    }
    expect(declined).toBeGreaterThan(0);
    const known = Buffer.from(jsonText([['type', 'a']]));
    expect(fresh.scan(known, 0, known.length)).toEqual({ type: 'a' });
  });
});
