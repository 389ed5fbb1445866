import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { encodeEvent } from '../../src/core/events/encode-event.js';
import { signRequestId } from '../../src/core/ids.js';
import { initialState } from '../../src/core/projections/projection-state.js';
import { fold } from '../../src/core/projections/reduce.js';
import type { LogRecord } from '../../src/engine/event-log.js';
import { createProjector } from '../../src/engine/projector.js';
import type { Halted, ReplayError } from '../../src/engine/projector-types.js';
import { previewRaw, RAW_PREVIEW_LENGTH } from '../../src/engine/quarantine.js';
import { restoreProjector, takeSnapshot } from '../../src/engine/snapshot.js';
import { wireMutationArb } from '../support/arbitraries.js';
import {
  decodableEvents,
  decodableTimes,
  rawStreamArb,
  recordsLog,
  recordsOf,
  type StreamItem,
  summarize,
} from '../support/engine-arbitraries.js';

/** A replay error that must be a halt (a fresh projector cannot start past the log). */
const haltOf = (error: ReplayError): Halted => {
  if (error.kind !== 'halted') throw new Error(`expected a halt, got ${error.kind}`);
  return error;
};

const REQUEST = signRequestId(1000);

const entry = (position: number, event: unknown, raw = JSON.stringify(event)): LogRecord => ({
  kind: 'entry',
  position,
  line: position + 10,
  receivedAt: undefined,
  deliveryId: undefined,
  event,
  raw,
});

describe('skip policy (default)', () => {
  it('quarantines a bad line with its position, line, raw text and reason', () => {
    const projector = createProjector();
    expect(projector.policy).toBe('skip');
    const result = projector.applyRecord({
      kind: 'bad-line',
      position: 4,
      line: 6,
      raw: '{"type":"participant-sig',
      reason: 'invalid JSON: Unterminated string',
    });
    expect(result._unsafeUnwrap()).toBe('quarantined');
    expect(projector.quarantine()).toEqual([
      {
        position: 4,
        line: 6,
        raw: '{"type":"participant-sig',
        reason: { kind: 'bad-line', message: 'invalid JSON: Unterminated string' },
      },
    ]);
    expect(projector.checkpoint).toBe(4);
    expect(projector.stats()).toMatchObject({ invalid: 1, conflicts: 0, applied: 0 });
  });

  it('a bad line sharing its position with the next entry (a file) leaves the checkpoint alone', () => {
    const projector = createProjector();
    const bad = {
      kind: 'bad-line',
      position: 4,
      line: 6,
      raw: 'garbage',
      reason: 'invalid JSON',
      sharesPosition: true,
    } as const;
    expect(projector.applyRecord(bad)._unsafeUnwrap()).toBe('quarantined');
    expect(projector.checkpoint).toBe(0);
    // Met again (a resumed replay reads from the checkpoint): passed over, counted once.
    expect(projector.applyRecord(bad)._unsafeUnwrap()).toBe('already-applied');
    expect(projector.applyRecord({ ...bad, line: 5 })._unsafeUnwrap()).toBe('already-applied');
    expect(projector.applyRecord({ ...bad, line: 7 })._unsafeUnwrap()).toBe('quarantined');
    expect(projector.quarantine().map((q) => q.line)).toEqual([6, 7]);
    expect(projector.stats()).toMatchObject({ invalid: 2, alreadyApplied: 0 });
    // The entry at that position is applied, not taken for one already applied.
    expect(projector.applyRecord(entry(4, buildEvent('participant-sent')))._unsafeUnwrap()).toBe(
      'applied',
    );
    expect(projector.checkpoint).toBe(4);
    expect(projector.applyRecord(bad)._unsafeUnwrap()).toBe('already-applied');
  });

  it('quarantines an undecodable event naming the member in the message', () => {
    fc.assert(
      fc.property(wireMutationArb, (mutation) => {
        const projector = createProjector();
        expect(projector.applyRecord(entry(1, mutation.wire))._unsafeUnwrap()).toBe('quarantined');
        const [q] = projector.quarantine();
        expect(q?.reason.kind).toBe('invalid-event');
        if (q?.reason.kind !== 'invalid-event') return;
        expect(q.reason.error.kind).toBe(mutation.expectedKind);
        expect(q.reason.error.path).toBe(mutation.expectedPath);
        expect(q.reason.message.startsWith(`${mutation.expectedPath}: `)).toBe(true);
        expect(q).toMatchObject({ position: 1, line: 11 });
        expect(projector.state()).toEqual(initialState());
      }),
      { numRuns: 100 },
    );
  });

  it('keeps the whole message for a value with no member path', () => {
    const projector = createProjector();
    projector.apply({ position: 1, event: [1, 2] });
    const [q] = projector.quarantine();
    expect(q).toMatchObject({ position: 1, line: undefined, raw: '[1,2]' });
    expect(q?.reason).toMatchObject({ kind: 'invalid-event', error: { kind: 'not-an-object' } });
    expect(q?.reason.message).toBe(
      q?.reason.kind === 'invalid-event' ? q.reason.error.message : '',
    );
  });

  it('quarantines a conflict with the Conflict, and leaves the state as it was', () => {
    const projector = createProjector();
    projector.applyRecord(entry(1, encodeEvent(buildEvent('participant-sent'))));
    const before = projector.state();
    const bad = encodeEvent(buildEvent('participant-signed', { companyId: 2 }));
    expect(projector.applyRecord(entry(2, bad))._unsafeUnwrap()).toBe('quarantined');
    const [q] = projector.quarantine();
    expect(q).toMatchObject({ position: 2, line: 12, raw: previewRaw(JSON.stringify(bad)) });
    expect(q?.reason).toMatchObject({
      kind: 'conflict',
      conflict: {
        kind: 'company-mismatch',
        entity: 'sign-request',
        id: 1000,
        recordCompanyId: 1,
        eventCompanyId: 2,
        eventType: 'participant-signed',
      },
    });
    expect(q?.reason.message).toMatch(/^company-mismatch: participant-signed conflicts with/);
    expect(projector.state()).toEqual(before);
    expect(projector.stats()).toMatchObject({ applied: 1, conflicts: 1, invalid: 0 });
  });

  it('keeps the raw text up to 200 characters, then cuts it with …', () => {
    const long = { type: 'nope', padding: 'x'.repeat(400) };
    const text = JSON.stringify(long);
    const projector = createProjector();
    projector.applyRecord(entry(1, long, text));
    projector.apply({ position: 2, event: long });
    const exact = 'y'.repeat(RAW_PREVIEW_LENGTH);
    projector.applyRecord({ kind: 'bad-line', position: 3, line: 3, raw: exact, reason: 'bad' });
    const [first, second, third] = projector.quarantine();
    expect(first?.raw).toBe(`${text.slice(0, 200)}…`);
    expect(second?.raw).toBe(`${text.slice(0, 200)}…`);
    expect(third?.raw).toBe(exact);
    expect(previewRaw('z'.repeat(201))).toHaveLength(201);
  });

  it('never cuts a surrogate pair in half', () => {
    const text = `${'a'.repeat(199)}😀 and more`;
    const preview = previewRaw(text);
    expect(preview).toBe(`${'a'.repeat(199)}…`);
    expect(previewRaw(`${'a'.repeat(198)}😀 and more`)).toBe(`${'a'.repeat(198)}😀…`);
  });
});

describe('halt policy', () => {
  const items: StreamItem[] = [
    { kind: 'value', value: encodeEvent(buildEvent('template-activated')) },
    { kind: 'value', value: encodeEvent(buildEvent('participant-sent')) },
    { kind: 'value', value: encodeEvent(buildEvent('participant-sent', { companyId: 2 })) },
    { kind: 'bad-line', text: 'garbage' },
    { kind: 'value', value: encodeEvent(buildEvent('participant-signed')) },
  ];

  it('stops at the first bad record with an error naming its position and line', async () => {
    const records = recordsOf(items);
    const projector = createProjector({ policy: 'halt' });
    const halted = haltOf((await projector.replay(recordsLog(records)))._unsafeUnwrapErr());
    expect(halted).toMatchObject({ kind: 'halted', position: 3, line: 3 });
    expect(halted.reason.kind).toBe('conflict');
    expect(halted.message).toMatch(/^halted at position 3 \(line 3\): company-mismatch/);
    // Exactly what came before is applied; nothing is quarantined or audited for position 3.
    expect(projector.checkpoint).toBe(2);
    expect(projector.state()).toEqual(
      fold(
        initialState(),
        decodableEvents(records.slice(0, 2)),
        decodableTimes(records.slice(0, 2)),
      ).state,
    );
    expect(projector.quarantine()).toEqual([]);
    expect(projector.signRequestHistory(REQUEST).map((e) => e.position)).toEqual([2]);
    expect(projector.stats()).toMatchObject({ applied: 2, conflicts: 0, invalid: 0 });
    // Replaying again halts at the same place.
    expect(haltOf((await projector.replay(recordsLog(records)))._unsafeUnwrapErr()).position).toBe(
      3,
    );
    expect(projector.checkpoint).toBe(2);
  });

  it('live apply halts too, and the halted position can be retried', () => {
    const projector = createProjector({ policy: 'halt' });
    projector.apply({ position: 1, event: buildEvent('participant-sent') });
    const halted = projector.apply({ position: 2, event: { type: 'nope' } })._unsafeUnwrapErr();
    expect(halted).toMatchObject({ position: 2, line: undefined });
    expect(halted.reason.kind).toBe('invalid-event');
    expect(halted.message).toMatch(/^halted at position 2: type: /);
    // The position is not consumed: a corrected event at the same position applies.
    expect(
      projector.apply({ position: 2, event: buildEvent('participant-signed') })._unsafeUnwrap(),
    ).toBe('applied');
  });

  it('a bad line halts with the reader reason', async () => {
    const records = recordsOf([items[0] as StreamItem, items[3] as StreamItem]);
    const halted = (
      await createProjector({ policy: 'halt' }).replay(recordsLog(records))
    )._unsafeUnwrapErr();
    expect(halted).toMatchObject({ position: 2, line: 2, reason: { kind: 'bad-line' } });
  });

  it('resumes past the halt with a skip projector restored from a snapshot, equal to skipping from the start', async () => {
    await fc.assert(
      fc.asyncProperty(rawStreamArb({ badLines: true }), async (stream) => {
        const log = recordsLog(recordsOf(stream));
        const skipping = createProjector();
        await skipping.replay(log);

        const halting = createProjector({ policy: 'halt' });
        const first = await halting.replay(log);
        if (first.isOk()) {
          expect(skipping.quarantine()).toEqual([]);
          expect(summarize(halting)).toEqual(summarize(skipping));
          return;
        }
        const halted = haltOf(first.error);
        expect(halted.position).toBe(skipping.quarantine()[0]?.position);
        expect(halting.checkpoint).toBe(halted.position - 1);
        const resumed = restoreProjector(
          JSON.parse(JSON.stringify(takeSnapshot(halting))),
        )._unsafeUnwrap();
        expect(resumed.policy).toBe('skip');
        await resumed.replay(log);
        expect(summarize(resumed)).toEqual(summarize(skipping));
      }),
      { numRuns: 60 },
    );
  });
});
