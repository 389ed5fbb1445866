/**
 * A bad line holds no position (issue 21, finding 4): it takes the position
 * after the last entry, which the next entry may take too, and the projector
 * never moves its checkpoint for it. So one garbage line in a log the writer
 * numbered 1, 2, 3… quarantines that line only, and replays cut anywhere
 * (by position, or by the file ending where a writer had got to) and resumed
 * from a snapshot equal one full replay.
 */
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { participantId, signRequestId } from '../../src/core/ids.js';
import { createProjector, type Projector } from '../../src/engine/projector.js';
import { restoreProjector, takeSnapshot } from '../../src/engine/snapshot.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { badLineTextArb, rawStreamArb, type StreamItem } from '../support/engine-arbitraries.js';
import { fileWith, openLog, readAll, removeTempDirs, tempDir } from './fixtures/log-helpers.js';

afterAll(removeTempDirs);

const fileLog = (path: string) => ({ read: (options?: object) => readFileEventLog(path, options) });

/** The state, quarantine and counters of a projector, comparable across projectors. */
const outcome = (projector: Projector) => ({
  state: projector.state(),
  checkpoint: projector.checkpoint,
  quarantine: projector.quarantine(),
  audit: projector.auditTrail()?.toData(),
  stats: projector.stats(),
});

/** A projector restored from a snapshot of `projector` taken through JSON, as a file would hold it. */
const throughSnapshot = (projector: Projector): Projector =>
  restoreProjector(JSON.parse(JSON.stringify(takeSnapshot(projector))))._unsafeUnwrap();

const envelope = (position: number, event: unknown): string =>
  JSON.stringify({ position, receivedAt: '2026-01-01T00:00:00.000Z', event });

describe('a bad line in an envelope log', () => {
  it('quarantines only itself: the envelopes after it keep their positions', async () => {
    const path = join(await tempDir(), 'events.ndjson');
    const log = await openLog(path);
    for (let i = 1; i <= 40; i += 1) {
      await log.append(buildEvent('participant-viewed', { participantId: i }));
    }
    await log.close();
    const lines = (await readAllText(path)).split('\n');
    lines.splice(10, 0, 'garbage');
    await writeFile(path, lines.join('\n'));

    const records = await readAll(readFileEventLog(path));
    const entries = records.filter((r) => r.kind === 'entry');
    expect(entries.map((r) => r.position)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const bad = records.filter((r) => r.kind === 'bad-line');
    expect(bad).toEqual([
      {
        kind: 'bad-line',
        position: 11,
        line: 11,
        raw: 'garbage',
        reason: expect.stringMatching(/^invalid JSON: /),
        sharesPosition: true,
      },
    ]);

    const projector = createProjector();
    await projector.replay(fileLog(path));
    expect(projector.stats()).toMatchObject({ invalid: 1, conflicts: 0 });
    expect(projector.quarantine().map((q) => [q.position, q.line])).toEqual([[11, 11]]);
    expect(projector.checkpoint).toBe(40);

    // The writer goes on after the last entry, whatever bad lines stand before it.
    const reopened = await openLog(path);
    expect(reopened.lastPosition).toBe(40);
    expect((await reopened.append(buildEvent('participant-signed')))._unsafeUnwrap().position).toBe(
      41,
    );
    await reopened.close();
  });

  it('leaves a lifecycle around it whole', async () => {
    const request = { signRequestId: 5001 };
    const ids = { ...request, participantId: 3 };
    const path = await fileWith(
      [
        envelope(1, buildEvent('sign-request-sent', request)),
        envelope(2, buildEvent('participant-sent', ids)),
        'garbage',
        '{"type":"participant-viewed",',
        '\u00a0',
        '\f',
        '\u2028',
        `\ufeff${JSON.stringify(buildEvent('participant-viewed', ids))}`,
        '['.repeat(1000),
        envelope(3, buildEvent('participant-viewed', ids)),
        envelope(4, buildEvent('participant-signed', ids)),
        envelope(5, buildEvent('sign-request-completed', request)),
        '',
      ].join('\r\n'),
    );
    const projector = createProjector();
    await projector.replay(fileLog(path));
    expect(projector.getSignRequest(signRequestId(5001))?.status).toBe('completed');
    expect(projector.getParticipant(signRequestId(5001), participantId(3))).toMatchObject({
      status: 'signed',
      viewCount: 1,
    });
    expect(projector.quarantine().map((q) => [q.position, q.line])).toEqual(
      [3, 4, 5, 6, 7, 8, 9].map((line) => [3, line]),
    );
  });

  it('a live log: garbage read at the end is quarantined once, and the entry written after it is applied', async () => {
    const path = join(await tempDir(), 'events.ndjson');
    const log = await openLog(path);
    await log.append(buildEvent('participant-sent'));
    const projector = createProjector();
    await projector.replay(log);
    await appendFile(path, 'garbage\n');
    await log.close();
    const reader = fileLog(path);
    await projector.replay(reader);
    expect(projector.quarantine().map((q) => [q.position, q.line])).toEqual([[2, 2]]);
    expect(projector.checkpoint).toBe(1);
    // Resumed from a snapshot or not, the garbage is not quarantined a second time.
    const restored = throughSnapshot(projector);
    const reopened = await openLog(path);
    expect((await reopened.append(buildEvent('participant-viewed')))._unsafeUnwrap().position).toBe(
      2,
    );
    const fromTwo = await readAll(reopened.read({ fromPosition: 2 }));
    expect(fromTwo.map((r) => [r.kind, r.position, r.line])).toEqual([
      ['bad-line', 2, 2],
      ['entry', 2, 3],
    ]);
    await reopened.close();
    for (const p of [projector, restored]) {
      await p.replay(reader);
      expect(p.quarantine()).toHaveLength(1);
      expect(p.checkpoint).toBe(2);
      expect(p.stats()).toMatchObject({ applied: 2, invalid: 1, alreadyApplied: 0 });
    }
  });
});

const readAllText = async (path: string): Promise<string> =>
  (await import('node:fs/promises')).readFile(path, 'utf8');

/** Lines no parser takes, `\n` left out: JSON that breaks off, and whitespace JSON does not allow. */
const badTextArb = fc.oneof(
  badLineTextArb.map((text) => text.replaceAll('\n', ' ')),
  fc.constantFrom('\u00a0', '\f', '\v', '\u2028', '\u3000', '\ufeff', '\ufeff{}', '', ' \t'),
);

/** The lines of a log: its values as envelopes numbered by the writer (or bare), bad lines among them. */
const linesArb = fc
  .tuple(
    rawStreamArb({ maxLength: 24 }),
    fc.array(fc.tuple(fc.nat(), badTextArb), { maxLength: 8 }),
    fc.boolean(),
    fc.boolean(),
  )
  .map(([items, bad, envelopes, crlf]) => {
    const lines = items.map((item: StreamItem, i) => {
      const value = item.kind === 'value' ? item.value : null;
      return envelopes ? envelope(i + 1, value) : (JSON.stringify(value) ?? 'null');
    });
    for (const [at, text] of bad) lines.splice(at % (lines.length + 1), 0, text);
    return { lines, eol: crlf ? '\r\n' : '\n' };
  });

describe('replays cut anywhere and resumed equal one full replay', () => {
  it(`at every position (--until) and at every line a writer could have got to (${count(20, 300)} logs)`, async () => {
    const dir = await tempDir();
    let file = 0;
    await fc.assert(
      fc.asyncProperty(linesArb, async ({ lines, eol }) => {
        const path = join(dir, `log-${file++}.ndjson`);
        const text = (n: number) =>
          lines
            .slice(0, n)
            .map((line) => `${line}${eol}`)
            .join('');
        await writeFile(path, text(lines.length));
        const log = fileLog(path);
        const whole = createProjector();
        await whole.replay(log);
        const expected = outcome(whole);
        const records = await readAll(readFileEventLog(path));
        const last = Math.max(0, ...records.map((r) => r.position));

        for (let until = 0; until <= last + 1; until += 1) {
          const head = createProjector();
          await head.replay(log, { until });
          for (const resumed of [head, throughSnapshot(head)]) {
            await resumed.replay(log);
            expect(outcome(resumed)).toEqual(expected);
          }
        }

        // A log being written: read up to each line, snapshot, resume on the whole log; and
        // one projector following it line by line.
        const growing = join(dir, `growing-${file}.ndjson`);
        const live = createProjector();
        for (let n = 0; n <= lines.length; n += 1) {
          await writeFile(growing, text(n));
          const head = createProjector();
          await head.replay(fileLog(growing));
          await live.replay(fileLog(growing));
          const resumed = throughSnapshot(head);
          await resumed.replay(log);
          expect(outcome(resumed)).toEqual(expected);
        }
        expect(outcome(live)).toEqual(expected);
      }),
      { numRuns: count(20, 300) },
    );
  });
});
