/**
 * The file engine's forget, in process: the law that replaying the rewritten log equals the fold of
 * the original with the names replaced, for random subjects on random logs; and the hostile corpus
 * (names of escapes, NUL, lone surrogates, 20,000 characters), whose lines keep their verdicts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEvent } from '../../../src/core/builders/plain-builders.js';
import { encodeEvent } from '../../../src/core/events/encode-event.js';
import { EVENT_TYPES } from '../../../src/core/events/event-members.js';
import type { ForgetRequest } from '../../../src/engine/forget-report.js';
import { forgetFileLog } from '../../../src/store/forget/forget-file-log.js';
import { removeTempDirs, runCliHere, tempDir } from '../../cli/cli-helpers.js';
import { HOSTILE_CORPUS } from '../../support/hostile-corpus.js';

afterAll(removeTempDirs);

const participantName = (id: number): string => `Pn${id}x`;
const userName = (id: number): string => `Us${id}q`;

/** A random event of a small world where every id has a name of its own. */
const eventArb = fc
  .record({
    type: fc.constantFrom(...EVENT_TYPES),
    signRequestId: fc.integer({ min: 1, max: 4 }),
    participantId: fc.integer({ min: 1, max: 5 }),
    senderId: fc.integer({ min: 20, max: 22 }),
    ownerId: fc.integer({ min: 30, max: 31 }),
    templateId: fc.integer({ min: 100, max: 101 }),
  })
  .map(({ type, signRequestId, participantId, senderId, ownerId, templateId }) =>
    encodeEvent(
      buildEvent(type, {
        signRequestId,
        signRequestName: `Contract of ${participantName(participantId)}`,
        participantId,
        participantName: participantName(participantId),
        senderId,
        senderName: userName(senderId),
        ownerId,
        ownerName: userName(ownerId),
        templateId,
        templateName: `Template of ${userName(ownerId)}`,
      }),
    ),
  );

/** A line of the log: mostly envelopes of events, sometimes a bad line quoting a name. */
const lineArb = (position: number): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 9,
      arbitrary: eventArb.map((event) =>
        JSON.stringify({ position, deliveryId: `d${position}`, event }),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 5 }).map((id) => `{"broken": "${participantName(id)}`),
    },
  );

const logArb = fc
  .integer({ min: 1, max: 60 })
  .chain((length) => fc.tuple(...Array.from({ length }, (_, i) => lineArb(i + 1))));

const subjectArb = fc.record({
  participantIds: fc.subarray([1, 2, 3, 4, 5], { maxLength: 2 }),
  userIds: fc.subarray([20, 21, 22, 30, 31], { maxLength: 2 }),
});

const replayJson = async (log: string): Promise<Record<string, unknown>> => {
  const run = await runCliHere(['replay', log, '--json']);
  expect(run.code, run.stderr).toBe(0);
  const value = JSON.parse(run.stdout) as {
    quarantine: { raw?: string; reason: { message: string } }[];
  };
  // A quarantined record's raw text is cut at a length, and JSON.parse says where a bad line broke:
  // both move with a longer pseudonym. Compared apart.
  for (const entry of value.quarantine) {
    delete entry.raw;
    entry.reason.message = entry.reason.message.replace(/at position \d+/, 'at position N');
  }
  return value as unknown as Record<string, unknown>;
};

describe('forgetFileLog', () => {
  it('law: replay of the rewritten log = fold of the original with the subject’s names replaced', async () => {
    await fc.assert(
      fc.asyncProperty(logArb, subjectArb, async (lines, { participantIds, userIds }) => {
        fc.pre(participantIds.length + userIds.length > 0);
        const dir = await tempDir();
        const log = join(dir, 'log.ndjson');
        await writeFile(log, `${lines.join('\n')}\n`);
        const original = await replayJson(log);
        const request: ForgetRequest = { participantIds, userIds, names: [], dryRun: false };
        const forgotten = await forgetFileLog(log, request);
        expect(forgotten.isOk()).toBe(true);
        const { pseudonym } = forgotten._unsafeUnwrap();
        const names = [...participantIds.map(participantName), ...userIds.map(userName)];
        // Names found only where the log had them: a bad line quotes a name it may not hold by id.
        const text = await readFile(log, 'utf8');
        let expected = JSON.stringify({ ...original, log: undefined });
        for (const name of names) {
          if (!lines.some((line) => line.includes(`":"${name}"`) && !line.startsWith('{"broken"')))
            continue;
          expected = expected.replaceAll(name, pseudonym);
          expect(text.includes(name)).toBe(false);
        }
        const received = JSON.parse(JSON.stringify({ ...(await replayJson(log)), log: undefined }));
        const wanted = JSON.parse(expected);
        // One pseudonym stands for every name forgotten together: an event that differed from the
        // state before it only by one of those names (a request's name given with Pn1x, then Pn5x)
        // applied before and is a no-op after. Every event is still one or the other.
        if (received.stats.conflicts < wanted.stats.conflicts) {
          // Likewise, a conflict that was only the difference between two of those names (a
          // request named with Pn4x, then sent as Pn3x's) is gone: its event applies, and the state
          // and quarantine differ by it. Only names forgotten together can do that.
          expect(names.length).toBeGreaterThan(1);
          const folded = (s: typeof wanted.stats) => s.applied + s.noOps + s.conflicts;
          expect(folded(received.stats)).toBe(folded(wanted.stats));
          expect(received.stats.invalid).toBe(wanted.stats.invalid);
          return;
        }
        const { applied, noOps, ...stats } = received.stats;
        const { applied: appliedBefore, noOps: noOpsBefore, ...statsBefore } = wanted.stats;
        expect(applied + noOps).toBe(appliedBefore + noOpsBefore);
        expect(applied).toBeLessThanOrEqual(appliedBefore);
        expect(stats).toEqual(statsBefore);
        expect({ ...received, stats: undefined }).toEqual({ ...wanted, stats: undefined });
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  const hostileNames = [
    '\u001b[2J\u001b]0;pwned\u0007',
    '\u202Efdp.exe',
    'nul\u0000byte',
    'lone \ud800 surrogate',
    'x'.repeat(20_000),
  ];

  it('forgets names of the hostile corpus like any other, and every line keeps its verdict', async () => {
    const corpus = await readFile(HOSTILE_CORPUS);
    for (const name of hostileNames) {
      const dir = await tempDir();
      const log = join(dir, 'hostile.ndjson');
      // The corpus, then the name as a participant's (by id) and as a title.
      const person = encodeEvent(
        buildEvent('participant-viewed', { participantId: 77, signRequestId: 5001 }),
      );
      const extra = [
        JSON.stringify({ ...person, partcipantName: name }),
        JSON.stringify({ ...person, partcipantName: name, roleId: 'not an id' }),
      ];
      await writeFile(log, Buffer.concat([corpus, Buffer.from(`${extra.join('\n')}\n`)]));
      const before = await replayJson(log);
      const byId = await forgetFileLog(log, {
        participantIds: [77],
        userIds: [],
        names: [],
        dryRun: false,
      });
      expect(byId.isOk()).toBe(true);
      const pseudonym = byId._unsafeUnwrap().pseudonym;
      // By typed name too: the corpus holds some of these as template names.
      const byName = await forgetFileLog(log, {
        participantIds: [],
        userIds: [],
        names: [name],
        dryRun: false,
      });
      expect(byName.isOk()).toBe(true);
      const after = await readFile(log);
      for (const form of [name, JSON.stringify(name).slice(1, -1)]) {
        expect(after.includes(Buffer.from(form)), JSON.stringify(name.slice(0, 20))).toBe(false);
      }
      const replayed = await replayJson(log);
      expect(replayed.stats).toEqual(before.stats);
      const kinds = (value: Record<string, unknown>) =>
        (value.quarantine as { position: number; reason: { kind: string } }[]).map((q) => [
          q.position,
          q.reason.kind,
        ]);
      expect(kinds(replayed)).toEqual(kinds(before));
      expect(after.includes(Buffer.from(pseudonym))).toBe(true);
    }
  }, 120_000);
});
