/**
 * `fold` over what a decoder returned: an `Err` is skipped and reported in
 * `rejected`, every index (of a conflict or a rejection) is the index of its
 * body, and `changed` says whether any event moved the state.
 */
import fc from 'fast-check';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../../src/core/builders/plain-builders.js';
import type { DecodeError } from '../../../src/core/decode-error.js';
import { decodeEventJson } from '../../../src/core/events/decode-event.js';
import { encodeEvent } from '../../../src/core/events/encode-event.js';
import { initialState } from '../../../src/core/projections/projection-state.js';
import { fold } from '../../../src/core/projections/reduce.js';
import { eventStreamArb } from '../../support/arbitraries.js';

const badBody: DecodeError = { kind: 'invalid-json', path: '', message: 'invalid JSON: nothing' };

describe('fold over decoded bodies', () => {
  it('indexes conflicts and rejections by body, and folds as the valid events alone', () => {
    fc.assert(
      fc.property(eventStreamArb(), fc.array(fc.nat(), { maxLength: 8 }), (events, badAt) => {
        const bodies = events.map((event) => ok(event)) as ReturnType<typeof decodeEventJson>[];
        for (const at of badAt) bodies.splice(at % (bodies.length + 1), 0, err(badBody));
        const mixed = fold(initialState(), bodies);
        const plain = fold(initialState(), events);
        expect(mixed.state).toEqual(plain.state);
        expect(mixed.changed).toBe(plain.changed);
        expect(mixed.rejected.map((r) => r.index)).toEqual(
          bodies.flatMap((body, i) => (body.isErr() ? [i] : [])),
        );
        // Each conflict names its body: the event at that index is the one that conflicted.
        const validIndex = bodies.flatMap((body, i) => (body.isOk() ? [i] : []));
        expect(mixed.conflicts.map((c) => c.index)).toEqual(
          plain.conflicts.map((c) => validIndex[c.index]),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('decodes real bodies: a bad one is rejected at its place, the conflict after it keeps its own', () => {
    const sent = buildEvent('sign-request-sent', { signRequestId: 42 });
    const completed = buildEvent('sign-request-completed', { signRequestId: 42 });
    const bodies = [
      JSON.stringify(encodeEvent(sent)),
      '{not json',
      JSON.stringify(encodeEvent(completed)),
      JSON.stringify(encodeEvent(sent)),
    ];
    const { conflicts, rejected, changed } = fold(
      initialState(),
      bodies.map((body) => decodeEventJson(body)),
    );
    expect(rejected.map((r) => [r.index, r.error.kind])).toEqual([[1, 'invalid-json']]);
    expect(conflicts.map((c) => [c.index, c.kind])).toEqual([[3, 'invalid-transition']]);
    expect(changed).toBe(true);
  });

  it('says nothing changed when every event is a no-op, a conflict or rejected', () => {
    const sent = buildEvent('sign-request-sent', { signRequestId: 7 });
    const { state } = fold(initialState(), [sent]);
    const again = fold(state, [sent, err(badBody)]);
    expect(again.changed).toBe(false);
    expect(again.state).toBe(state);
    expect(fold(state, []).changed).toBe(false);
  });
});
