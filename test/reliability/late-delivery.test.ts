import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateEvents } from '../../bench/generate-stream.js';
import { decodeEvent } from '../../src/core/events/decode-event.js';
import type { SignEvent } from '../../src/core/events/sign-event.js';
import type { ProjectionState } from '../../src/core/projections/projection-state.js';
import { initialState } from '../../src/core/projections/projection-state.js';
import { fold } from '../../src/core/projections/reduce.js';
import { count } from './fixtures/reliability-helpers.js';

/** The statuses a delivery order must not change. */
const statuses = (state: ProjectionState) => ({
  requests: [...state.signRequests.values()].map((r) => [r.id, r.status, r.deleted]).sort(),
  participants: [...state.participants.values()]
    .flatMap((m) => [...m.values()])
    .map((p) => [p.signRequestId, p.id, p.status])
    .sort(),
});

/** The late decision each final status tolerates: a signature after completion, a refusal after a decline. */
const TOLERATED_AFTER: Readonly<Record<string, string>> = {
  'participant-signed': 'sign-request-completed',
  'participant-declined': 'sign-request-declined',
};

/**
 * Delivers some participant decisions after their request's final event (but
 * before its deletion, after which everything conflicts by design), and some
 * events twice: the lateness the status rules promise to tolerate.
 */
const deliverLate = (events: readonly SignEvent[], rand: () => number, share: number) => {
  const finalAt = new Map<string, number>();
  const deletedAt = new Map<number, number>();
  events.forEach((e, i) => {
    if (!('signRequestId' in e)) return;
    const key = `${e.type}:${e.signRequestId}`;
    if (!finalAt.has(key)) finalAt.set(key, i);
    if (e.type === 'sign-request-deleted') deletedAt.set(e.signRequestId, i);
  });
  let moved = 0;
  const keyed = events.map((event, i) => {
    const after = TOLERATED_AFTER[event.type];
    if (after === undefined || !('signRequestId' in event) || rand() >= share) {
      return { event, key: i };
    }
    const final = finalAt.get(`${after}:${event.signRequestId}`);
    if (final === undefined || final < i) return { event, key: i };
    const limit = deletedAt.get(event.signRequestId) ?? events.length;
    moved += 1;
    return { event, key: final + 0.5 + rand() * (limit - final - 1) };
  });
  const delivered = keyed
    .sort((a, b) => a.key - b.key)
    .flatMap(({ event }) => (rand() < 0.1 ? [event, event] : [event]));
  return { delivered, moved };
};

describe('late deliveries within the tolerance of the status rules', () => {
  it('give the same statuses as a clean delivery, with no conflict', () => {
    let movedTotal = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.double({ min: 0.2, max: 1, noNaN: true }),
        (seed, share) => {
          const clean = [
            ...generateEvents({ seed, signRequests: 60, duplicateRate: 0, reorderRate: 0 }),
          ].map((wire) => decodeEvent(wire)._unsafeUnwrap());
          let state = seed;
          const rand = () => {
            state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
            return state / 2 ** 31;
          };
          const { delivered, moved } = deliverLate(clean, rand, share);
          movedTotal += moved;
          const expected = fold(initialState(), clean);
          const actual = fold(initialState(), delivered);
          expect(expected.conflicts).toEqual([]);
          expect(actual.conflicts).toEqual([]);
          expect(statuses(actual.state)).toEqual(statuses(expected.state));
        },
      ),
      { numRuns: count(40, 1000) },
    );
    // The perturbation must actually happen, or the property says nothing.
    expect(movedTotal).toBeGreaterThan(100);
    console.log(
      `late deliveries: ${movedTotal} participant decisions delivered after their request's final event`,
    );
  });
});
