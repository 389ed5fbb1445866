/**
 * Resuming from a snapshot whose checkpoint lies past the log's last
 * position is refused with a Result error (finding 3 of issue 21): before,
 * every later record was skipped as already applied, without an error.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import type { LogRecord } from '../../src/engine/event-log.js';
import { createProjector } from '../../src/engine/projector.js';
import { restoreProjector, takeSnapshot } from '../../src/engine/snapshot.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { rawStreamArb, recordsLog, recordsOf } from '../support/engine-arbitraries.js';

describe('resuming a snapshot against a log', () => {
  it('refuses a log that ends before the checkpoint, changing nothing; accepts one that reaches it', async () => {
    await fc.assert(
      fc.asyncProperty(
        rawStreamArb({ badLines: true }).filter((s) => s.length > 0),
        fc.nat(),
        fc.nat(),
        async (stream, cutSeed, shortSeed) => {
          const records = recordsOf(stream);
          const cut = 1 + (cutSeed % records.length);
          const head = createProjector();
          await head.replay(recordsLog(records.slice(0, cut)));
          const snapshot = takeSnapshot(head);
          const restore = () => restoreProjector(structuredClone(snapshot))._unsafeUnwrap();

          // A shorter log (possibly empty): refused, and the projector is as restored.
          const short = shortSeed % cut;
          const refusedBy = restore();
          const refused = await refusedBy.replay(recordsLog(records.slice(0, short)));
          expect(refused._unsafeUnwrapErr()).toEqual({
            kind: 'checkpoint-past-log',
            checkpoint: cut,
            message: `the checkpoint ${cut} lies past the end of the log (it has no record at position ${cut} or later): the snapshot was taken from another or a longer log; replay from the start`,
          });
          expect(takeSnapshot(refusedBy)).toEqual(snapshot);

          // The log that ends exactly at the checkpoint: nothing to do, no counter moves.
          const same = restore();
          expect((await same.replay(recordsLog(records.slice(0, cut))))._unsafeUnwrap()).toEqual(
            snapshot.stats,
          );
          expect(takeSnapshot(same)).toEqual(snapshot);

          // The whole log: equal to a full replay, counters included.
          const whole = createProjector();
          await whole.replay(recordsLog(records));
          const resumed = restore();
          await resumed.replay(recordsLog(records));
          expect(takeSnapshot(resumed)).toEqual(takeSnapshot(whole));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('takes gaps between positions in stride (envelope logs)', async () => {
    const at = (position: number): LogRecord => ({
      kind: 'entry',
      position,
      line: position,
      receivedAt: undefined,
      deliveryId: undefined,
      event: buildEvent('participant-viewed'),
      raw: '{}',
    });
    const gappy = recordsLog([at(1), at(5), at(9)]);
    const projector = createProjector();
    projector.apply({ position: 5, event: buildEvent('participant-sent') });
    // The record at the checkpoint is the one already applied; 9 follows it.
    expect((await projector.replay(gappy))._unsafeUnwrap().applied).toBe(2);
    expect(projector.checkpoint).toBe(9);
    // Every record at the checkpoint is passed over uncounted, even two sharing that position.
    const bad: LogRecord = {
      kind: 'bad-line',
      position: 5,
      line: 2,
      raw: 'x',
      reason: 'invalid JSON',
    };
    const shared = createProjector();
    shared.apply({ position: 5, event: buildEvent('participant-sent') });
    const counted = (await shared.replay(recordsLog([at(1), bad, at(5)])))._unsafeUnwrap();
    expect(counted).toMatchObject({ applied: 1, alreadyApplied: 0, invalid: 0 });
    expect(shared.quarantine()).toEqual([]);
    // A checkpoint inside a gap the log does not reach is still refused once past its end.
    const ahead = createProjector();
    ahead.apply({ position: 10, event: buildEvent('participant-sent') });
    expect((await ahead.replay(gappy))._unsafeUnwrapErr().kind).toBe('checkpoint-past-log');
  });

  it('refuses through a memory log too, and a fresh projector accepts an empty log', async () => {
    const log = createMemoryEventLog();
    for (let i = 0; i < 3; i += 1) await log.append(buildEvent('participant-viewed'));
    const projector = createProjector();
    projector.apply({ position: 3917, event: buildEvent('participant-sent') });
    const refused = await projector.replay(log);
    expect(refused._unsafeUnwrapErr()).toMatchObject({
      kind: 'checkpoint-past-log',
      checkpoint: 3917,
    });
    expect(projector.stats().alreadyApplied).toBe(0);
    expect((await createProjector().replay(createMemoryEventLog())).isOk()).toBe(true);
  });
});
