/**
 * `lazyRaw` reads: records whose `raw` is built when read (ScannedEntry) must
 * be indistinguishable through their members from a plain read, `raw`
 * included, and a replay must quarantine the same texts either way.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { LogRecord, ReadOptions } from '../../src/engine/event-log.js';
import { createProjector } from '../../src/engine/projector.js';
import { nodeFileIO } from '../../src/store/file-io.js';
import {
  readFileEventLog,
  streamRecords,
  streamSettings,
} from '../../src/store/file-record-stream.js';
import { ScannedEntry } from '../../src/store/scanned-entry.js';
import { rawStreamArb, type StreamItem } from '../support/engine-arbitraries.js';
import { openLog, readAll, removeTempDirs, tempDir } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

/** Every member a reader can see, `raw` read through whatever the record has. */
const members = (record: LogRecord) =>
  record.kind === 'entry'
    ? {
        kind: record.kind,
        position: record.position,
        line: record.line,
        receivedAt: record.receivedAt,
        deliveryId: record.deliveryId,
        event: record.event,
        raw: record.raw,
      }
    : { ...record };

/** Lines of `items`, bare or in envelopes (some with a delivery id). */
const linesOf = (items: readonly StreamItem[], envelope: boolean): string[] =>
  items.map((item, i) => {
    if (item.kind === 'bad-line') return item.text;
    const value = JSON.stringify(item.value) ?? 'null';
    if (!envelope) return value;
    const id = i % 2 === 0 ? `,"deliveryId":"d-${i}"` : '';
    return `{"position":${i + 1},"receivedAt":"2025-01-01T00:00:00.000Z"${id},"event":${value}}`;
  });

let files = 0;
const writeLines = async (lines: readonly string[]): Promise<string> => {
  files += 1;
  const path = join(await tempDir(), `lazy-${files}.ndjson`);
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
};

describe('reads with lazyRaw', () => {
  it('yield records whose members, raw included, equal those of a plain read', async () => {
    let scanned = 0;
    await fc.assert(
      fc.asyncProperty(
        rawStreamArb({ badLines: true, maxLength: 30 }),
        fc.boolean(),
        fc.integer({ min: 16, max: 2048 }),
        async (items, envelope, chunkBytes) => {
          const path = await writeLines(linesOf(items, envelope));
          const plain = await readAll(readFileEventLog(path, { chunkBytes }));
          const lazy = await readAll(readFileEventLog(path, { chunkBytes, lazyRaw: true }));
          expect(lazy.map(members)).toEqual(plain.map(members));
          // A plain read never hands out the lazy kind of record.
          expect(plain.some((record) => record instanceof ScannedEntry)).toBe(false);
          scanned += lazy.filter((record) => record instanceof ScannedEntry).length;
        },
      ),
      { numRuns: 60 },
    );
    // Not vacuous: the lazy read did hand out records whose raw is built on demand.
    expect(scanned).toBeGreaterThan(100);
  });

  it('build raw on demand for well-formed lines, and keep it off the own members', async () => {
    const event = { type: 'template-deleted', companyId: 1, templateId: 9 };
    const bare = JSON.stringify(event);
    const envelope = `{"position":2,"receivedAt":"2025-01-01T00:00:00.000Z","event":${bare}}`;
    const path = await writeLines([bare, envelope, '{ "type": "template-deleted" }']);
    const [first, second, spaced] = await readAll(readFileEventLog(path, { lazyRaw: true }));
    expect(first).toBeInstanceOf(ScannedEntry);
    expect(first?.raw).toBe(bare);
    expect(second).toBeInstanceOf(ScannedEntry);
    expect(second?.raw).toBe(envelope);
    expect(second?.kind === 'entry' && second.receivedAt).toBe('2025-01-01T00:00:00.000Z');
    // As documented: the getter is on the prototype, so a spread does not copy it.
    expect(Object.keys(first ?? {})).not.toContain('raw');
    // A line the fast path declines (whitespace) keeps its exact text as a plain member.
    expect(spaced).not.toBeInstanceOf(ScannedEntry);
    expect(spaced?.raw).toBe('{ "type": "template-deleted" }');
  });

  it("read envelopes in the log's own member order as JSON.parse does, bad positions included", async () => {
    const event = '{"type":"template-deleted","companyId":1,"templateId":9}';
    const at = '"receivedAt":"2025-01-01T00:00:00.000Z"';
    const lines = [
      `{"position":3,${at},"deliveryId":"dlv-Müller-’","event":${event}}`,
      `{"position":3,${at},"event":${event}}`, // not after the previous position
      `{"position":0,${at},"deliveryId":"x","event":${event}}`, // not positive
      `{"position":4,"receivedAt":"José","event":${event}}`,
      `{"position":5,"receivedAt":7,"event":${event}}`, // receivedAt not a string
      `{"position":6,${at},"deliveryId":8,"event":${event}}`, // deliveryId not a string
      `{"position":"7",${at},"event":${event}}`, // position not a number: a bare event
      `{"position":9,${at},"deliveryId":"","event":{}}`,
      `{${at},"position":10,"event":${event}}`, // another order: the generic path
    ];
    const path = await writeLines(lines);
    for (const chunkBytes of [16, 97, 65536]) {
      const handle = await nodeFileIO.open(path, 'read');
      const settings = { ...streamSettings({ chunkBytes }), scan: false };
      const reference = await readAll(streamRecords(handle, settings));
      await handle.close();
      const lazy = await readAll(readFileEventLog(path, { chunkBytes, lazyRaw: true }));
      const plain = await readAll(readFileEventLog(path, { chunkBytes }));
      expect(lazy.map(members)).toEqual(reference.map(members));
      expect(plain.map(members)).toEqual(reference.map(members));
      // Not vacuous: with whole lines in a chunk, the fast path made the entries.
      const scanned = lazy.filter((record) => record instanceof ScannedEntry).length;
      if (chunkBytes === 65536) expect(scanned).toBeGreaterThan(4);
    }
  });

  it('replay to the same state and quarantine (raw previews included) as plain reads', async () => {
    await fc.assert(
      fc.asyncProperty(
        rawStreamArb({ badLines: true, maxLength: 40 }),
        fc.boolean(),
        async (items, envelope) => {
          const path = await writeLines(linesOf(items, envelope));
          const lazy = createProjector({ audit: false });
          (await lazy.replay({ read: (o) => readFileEventLog(path, o) }))._unsafeUnwrap();
          const plain = createProjector({ audit: false });
          const withoutLazy = (o?: ReadOptions) =>
            readFileEventLog(path, { fromPosition: o?.fromPosition ?? 1 });
          (await plain.replay({ read: withoutLazy }))._unsafeUnwrap();
          expect(lazy.quarantine()).toEqual(plain.quarantine());
          expect(lazy.state()).toEqual(plain.state());
          expect(lazy.stats()).toEqual(plain.stats());
        },
      ),
      { numRuns: 40 },
    );
  });

  it('are what a projector replay asks for, from its checkpoint (whose record proves the log reaches it)', async () => {
    const path = await writeLines([
      JSON.stringify({ type: 'template-deleted', companyId: 1, templateId: 9 }),
    ]);
    const asked: (ReadOptions | undefined)[] = [];
    const projector = createProjector({ audit: false });
    const read = (options?: ReadOptions) => {
      asked.push(options);
      return readFileEventLog(path, options);
    };
    (await projector.replay({ read }))._unsafeUnwrap();
    (await projector.replay({ read }))._unsafeUnwrap();
    expect(asked).toEqual([
      { fromPosition: 1, lazyRaw: true },
      { fromPosition: 1, lazyRaw: true },
    ]);
    expect(projector.stats().alreadyApplied).toBe(0);
  });

  it('leave opening a file log for append unchanged (positions and delivery ids found)', async () => {
    const dir = await tempDir();
    const path = join(dir, 'events.ndjson');
    const first = await openLog(path);
    await first.append(
      { type: 'template-deleted', companyId: 1, templateId: 1 },
      { deliveryId: 'a' },
    );
    await first.close();
    const again = await openLog(path);
    const repeated = await again.append({ type: 'x' }, { deliveryId: 'a' });
    expect(repeated._unsafeUnwrap()).toEqual({ kind: 'duplicate', position: 1 });
    await again.close();
  });
});
