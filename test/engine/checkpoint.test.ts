import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { participantId, signRequestId } from '../../src/core/ids.js';
import { createProjector } from '../../src/engine/projector.js';
import {
  checkpointUntil,
  memoryLogOf,
  RECORD_NUMBERINGS,
  rawStreamArb,
  readAll,
  recordsLog,
  recordsOf,
  summarize,
} from '../support/engine-arbitraries.js';

const REQUEST = signRequestId(1000);
const ADA = participantId(5);

describe('checkpoint', () => {
  it('starts at 0 and follows every processed position, quarantined ones included', () => {
    const projector = createProjector();
    expect(projector.checkpoint).toBe(0);
    projector.apply({ position: 3, event: buildEvent('participant-sent') });
    expect(projector.checkpoint).toBe(3);
    projector.apply({ position: 7, event: { type: 'nope' } });
    expect(projector.checkpoint).toBe(7);
    projector.apply({ position: 9, event: buildEvent('participant-sent', { companyId: 2 }) });
    expect(projector.checkpoint).toBe(9);
    expect(projector.quarantine().map((q) => q.position)).toEqual([7, 9]);
  });

  it('re-applying a position at or below the checkpoint is already-applied and changes nothing', () => {
    const projector = createProjector();
    projector.apply({ position: 1, event: buildEvent('participant-sent') });
    projector.apply({ position: 2, event: buildEvent('participant-viewed') });
    const before = summarize(projector);
    const stats = projector.stats();
    const participant = projector.getParticipant(REQUEST, ADA);

    // The same delivery again, an older one, and a different event under an old position.
    expect(
      projector.apply({ position: 2, event: buildEvent('participant-viewed') })._unsafeUnwrap(),
    ).toBe('already-applied');
    expect(
      projector.apply({ position: 1, event: buildEvent('participant-signed') })._unsafeUnwrap(),
    ).toBe('already-applied');
    expect(projector.apply({ position: 0, event: { not: 'an event' } })._unsafeUnwrap()).toBe(
      'already-applied',
    );
    expect(
      projector
        .applyRecord({ kind: 'bad-line', position: 2, line: 2, raw: '{', reason: 'invalid JSON' })
        ._unsafeUnwrap(),
    ).toBe('already-applied');

    expect(summarize(projector)).toEqual(before);
    expect(projector.getParticipant(REQUEST, ADA)).toBe(participant);
    // The redelivered participant-viewed (position 2) was not counted a second time.
    expect(projector.getParticipant(REQUEST, ADA)?.viewCount).toBe(1);
    expect(projector.stats()).toEqual({ ...stats, alreadyApplied: 4 });
    expect(projector.signRequestHistory(REQUEST)).toHaveLength(2);
  });

  it('replaying the same log twice never double-counts', async () => {
    const log = await memoryLogOf([
      { kind: 'value', value: buildEvent('participant-sent') },
      { kind: 'value', value: buildEvent('participant-viewed') },
      { kind: 'value', value: buildEvent('participant-viewed') },
    ]);
    const projector = createProjector();
    await projector.replay(log);
    const once = summarize(projector);
    const again = await projector.replay(log);
    expect(again._unsafeUnwrap()).toMatchObject({ applied: 3 });
    expect(summarize(projector)).toEqual(once);
    expect(projector.getParticipant(REQUEST, ADA)?.viewCount).toBe(2);
  });

  it.each(RECORD_NUMBERINGS)(
    'resuming after an interruption at any k equals an uninterrupted replay (bad lines with %s)',
    async (_, numbering) => {
      await fc.assert(
        fc.asyncProperty(
          rawStreamArb({ badLines: true }).chain((items) =>
            fc.tuple(fc.constant(items), fc.integer({ min: 0, max: items.length + 1 })),
          ),
          async ([items, k]) => {
            const records = numbering(items);
            const log = recordsLog(records);
            const whole = createProjector();
            await whole.replay(log);

            const resumed = createProjector();
            const first = await resumed.replay(log, { until: k });
            expect(first.isOk()).toBe(true);
            // Bad lines never move the checkpoint: it is the last entry at or before k.
            expect(resumed.checkpoint).toBe(checkpointUntil(records, k));
            await resumed.replay(log);
            expect(summarize(resumed)).toEqual(summarize(whole));
            expect(resumed.stats()).toEqual(whole.stats());
          },
        ),
        { numRuns: 60 },
      );
    },
  );

  it('reports progress after each batch with the checkpoint and the number processed', async () => {
    const items = Array.from({ length: 7 }, (_, i) => ({
      kind: 'value' as const,
      value: buildEvent('participant-viewed', { participantId: i + 1 }),
    }));
    const seen: [number, number][] = [];
    const projector = createProjector();
    await projector.replay(recordsLog(recordsOf(items), 3), {
      onProgress: (position, processed) => seen.push([position, processed]),
    });
    expect(seen).toEqual([
      [3, 3],
      [6, 6],
      [7, 7],
    ]);
  });

  it('a memory log read from the checkpoint serves only the tail', async () => {
    const log = await memoryLogOf([
      { kind: 'value', value: buildEvent('participant-sent') },
      { kind: 'value', value: buildEvent('participant-signed') },
    ]);
    const projector = createProjector();
    projector.apply({ position: 1, event: buildEvent('participant-sent') });
    const stats = await projector.replay(log);
    expect(stats._unsafeUnwrap()).toMatchObject({ applied: 2, alreadyApplied: 0 });
    expect((await readAll(log)).length).toBe(2);
  });
});
