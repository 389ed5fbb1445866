import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { signRequestId } from '../../src/core/ids.js';
import { initialState } from '../../src/core/projections/projection-state.js';
import { fold } from '../../src/core/projections/reduce.js';
import { createProjector } from '../../src/engine/projector.js';
import { stateAsOf } from '../../src/engine/time-travel.js';
import {
  decodableEvents,
  decodableTimes,
  memoryLogOf,
  rawStreamArb,
  readAll,
  recordsLog,
  recordsOf,
  summarize,
} from '../support/engine-arbitraries.js';

const RUNS = { numRuns: 60 };

describe('live and bulk application agree', () => {
  it('applyRecord one at a time, apply of raw values, and replay give the same projector; all equal fold', async () => {
    await fc.assert(
      fc.asyncProperty(rawStreamArb(), async (items) => {
        const log = await memoryLogOf(items);
        const records = await readAll(log);

        const bulk = createProjector();
        const replayed = await bulk.replay(log);
        expect(replayed.isOk()).toBe(true);

        const byRecord = createProjector();
        const byValue = createProjector();
        for (const record of records) {
          if (record.kind !== 'entry') throw new Error('memory logs hold entries only');
          expect(byRecord.applyRecord(record).isOk()).toBe(true);
          const live = byValue.apply({
            position: record.position,
            event: record.event,
            ...(record.receivedAt === undefined ? {} : { receivedAt: record.receivedAt }),
            raw: record.raw,
          });
          expect(live.isOk()).toBe(true);
        }

        const expected = summarize(bulk);
        expect(summarize(byRecord)).toEqual(expected);
        expect(byRecord.stats()).toEqual(bulk.stats());
        // A live event has no line number; everything else is the same.
        const { quarantine, ...rest } = summarize(byValue);
        const { quarantine: bulkQuarantine, ...bulkRest } = expected;
        expect(rest).toEqual(bulkRest);
        expect(quarantine).toEqual(bulkQuarantine.map((q) => ({ ...q, line: undefined })));

        // The core fold over the events that decode reaches the same state and conflicts.
        const folded = fold(initialState(), decodableEvents(records), decodableTimes(records));
        expect(bulk.state()).toEqual(folded.state);
        const conflicts = expected.quarantine.filter((q) => q.reason.kind === 'conflict');
        expect(conflicts.map((q) => q.reason.kind === 'conflict' && q.reason.conflict)).toEqual(
          folded.conflicts.map(({ index: _index, ...c }) => c),
        );
        expect(bulk.checkpoint).toBe(records.length);
        expect(bulk.stats().applied + bulk.stats().noOps + expected.quarantine.length).toBe(
          records.length,
        );
      }),
      RUNS,
    );
  });

  it('agrees with bad lines in the log too (applyRecord vs replay, small batches)', async () => {
    await fc.assert(
      fc.asyncProperty(rawStreamArb({ badLines: true }), async (items) => {
        const records = recordsOf(items);
        const bulk = createProjector();
        await bulk.replay(recordsLog(records, 2));
        const live = createProjector();
        for (const record of records) live.applyRecord(record);
        expect(summarize(live)).toEqual(summarize(bulk));
        expect(bulk.state()).toEqual(
          fold(initialState(), decodableEvents(records), decodableTimes(records)).state,
        );
        expect(bulk.quarantine().filter((q) => q.reason.kind === 'bad-line').length).toBe(
          items.filter((i) => i.kind === 'bad-line').length,
        );
      }),
      RUNS,
    );
  });

  it('a state() handed out never changes when later events apply', () => {
    const projector = createProjector();
    projector.apply({ position: 1, event: buildEvent('participant-sent') });
    const before = projector.state();
    const request = before.signRequests.get(signRequestId(1000));
    projector.apply({ position: 2, event: buildEvent('participant-signed') });
    projector.apply({ position: 3, event: buildEvent('sign-request-completed') });
    projector.apply({
      position: 4,
      event: buildEvent('participant-sent', { signRequestId: 1001 }),
    });
    expect(before.signRequests.get(signRequestId(1000))).toBe(request);
    expect(request?.status).toBe('sent');
    expect(before.signRequests.size).toBe(1);
    expect([...(before.participants.get(signRequestId(1000))?.values() ?? [])]).toMatchObject([
      { status: 'sent' },
    ]);
    expect(projector.getSignRequest(signRequestId(1000))?.status).toBe('completed');
    expect(Object.isFrozen(projector.getSignRequest(signRequestId(1000)))).toBe(true);
  });
});

describe('time travel', () => {
  it('stateAsOf(log, n) equals fold of the decodable events of positions 1..n', async () => {
    await fc.assert(
      fc.asyncProperty(
        rawStreamArb().chain((items) =>
          fc.tuple(fc.constant(items), fc.integer({ min: 0, max: items.length + 2 })),
        ),
        async ([items, n]) => {
          const log = await memoryLogOf(items);
          const records = await readAll(log);
          const asOf = await stateAsOf(log, n);
          const expected = fold(
            initialState(),
            decodableEvents(records.slice(0, n)),
            decodableTimes(records.slice(0, n)),
          ).state;
          expect(asOf._unsafeUnwrap()).toEqual(expected);
        },
      ),
      RUNS,
    );
  });

  it('stateAsOf with a halt policy reports the first bad record before n', async () => {
    const log = await memoryLogOf([
      { kind: 'value', value: buildEvent('participant-sent') },
      { kind: 'value', value: { type: 'nope' } },
      { kind: 'value', value: buildEvent('participant-signed') },
    ]);
    expect((await stateAsOf(log, 1, { policy: 'halt' })).isOk()).toBe(true);
    const halted = await stateAsOf(log, 3, { policy: 'halt' });
    expect(halted._unsafeUnwrapErr()).toMatchObject({ kind: 'halted', position: 2 });
  });
});
