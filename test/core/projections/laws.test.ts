/**
 * Laws of the projections, checked on random event streams over a small id
 * space (see `eventStreamArb`), where late, repeated and contradicting events
 * are common.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../../src/core/builders/plain-builders.js';
import type { SignEvent } from '../../../src/core/events/sign-event.js';
import type { Conflict } from '../../../src/core/projections/conflict.js';
import {
  initialState,
  listParticipants,
  listSignRequests,
  listTemplates,
  type ProjectionState,
} from '../../../src/core/projections/projection-state.js';
import { fold, reduce } from '../../../src/core/projections/reduce.js';
import { eventStreamArb, splitStreamArb } from '../../support/arbitraries.js';

const RUNS = { numRuns: 200 };

/** Reduces one event at a time, collecting the conflicts with their indices. */
const stepwise = (start: ProjectionState, events: readonly SignEvent[]) => {
  let state = start;
  const conflicts: (Conflict & { index: number })[] = [];
  events.forEach((event, index) => {
    const result = reduce(state, event);
    if (result.isErr()) conflicts.push({ ...result.error, index });
    else state = result.value;
  });
  return { state, conflicts };
};

/** Statuses only (no counters, no names): what duplicate delivery must not change. */
const statuses = (state: ProjectionState) => ({
  templates: Object.fromEntries([...listTemplates(state)].map((t) => [t.id, t.status])),
  signRequests: Object.fromEntries(
    [...listSignRequests(state)].map((r) => [r.id, `${r.status}${r.deleted ? ' (deleted)' : ''}`]),
  ),
  participants: Object.fromEntries(
    [...listParticipants(state)].map((p) => [`${p.signRequestId}/${p.id}`, p.status]),
  ),
});

/** The ids of each projection in listing (first-seen) order. */
const order = (state: ProjectionState) => ({
  templates: [...listTemplates(state)].map((t) => t.id),
  signRequests: [...listSignRequests(state)].map((r) => r.id),
  participants: [...listParticipants(state)].map((p) => `${p.signRequestId}/${p.id}`),
});

/** Asserts that a value and everything reachable from it is frozen, Maps included. */
const expectDeepFrozen = (value: unknown, path = 'state'): void => {
  if (typeof value !== 'object' || value === null) return;
  expect(Object.isFrozen(value), `${path} is frozen`).toBe(true);
  if (value instanceof Map) {
    const probe = Symbol('probe');
    let mutated = false;
    try {
      value.set(probe, probe);
      mutated = true;
      value.delete(probe);
    } catch {
      // expected: a frozen Map refuses writes
    }
    expect(mutated, `${path} (a Map) refuses set`).toBe(false);
    for (const [key, item] of value) expectDeepFrozen(item, `${path}.get(${String(key)})`);
    return;
  }
  for (const [key, item] of Object.entries(value)) expectDeepFrozen(item, `${path}.${key}`);
};

/** A start state built from a random stream, so laws are checked from non-empty states too. */
const startArb = fc.oneof(
  fc.constant(initialState()),
  eventStreamArb({ maxLength: 15 }).map((events) => fold(initialState(), events).state),
);

describe('projection laws', () => {
  // First in the file: it must see the shared initial state before any other test touches it.
  it('the initial state is deeply frozen, and so is a fold that leaves parts of it untouched', () => {
    expectDeepFrozen(initialState());
    expectDeepFrozen(fold(initialState(), []).state);
    const { state } = fold(initialState(), [buildEvent('template-activated')]);
    expectDeepFrozen(state);
    expect(state.signRequests).toBe(initialState().signRequests);
    expect(() => (initialState().templates as Map<unknown, unknown>).set('x', 1)).toThrow();
    expect(initialState().templates.size).toBe(0);
    expect(initialState().signRequests.size).toBe(0);
    expect(initialState().participants.size).toBe(0);
  });

  it('(a) fold equals reducing one event at a time: state, order and conflicts', () => {
    const kindsSeen = new Set<string>();
    fc.assert(
      fc.property(startArb, eventStreamArb(), (start, events) => {
        const folded = fold(start, events);
        const stepped = stepwise(start, events);
        expect(folded.state).toEqual(stepped.state);
        expect(order(folded.state)).toEqual(order(stepped.state));
        expect(folded.conflicts.map((c) => c.index)).toEqual(stepped.conflicts.map((c) => c.index));
        expect(folded.conflicts).toEqual(stepped.conflicts);
        for (const c of folded.conflicts) kindsSeen.add(c.kind);
      }),
      RUNS,
    );
    // The streams must reach every kind of conflict, or the law says little.
    expect([...kindsSeen].sort()).toEqual([
      'company-mismatch',
      'deleted',
      'invalid-transition',
      'reference-mismatch',
    ]);
  });

  it('(b) a conflicting event leaves the state exactly as it was', () => {
    let conflictsChecked = 0;
    fc.assert(
      fc.property(startArb, eventStreamArb(), (start, events) => {
        let state = start;
        for (const event of events) {
          const before = structuredClone(state);
          const result = reduce(state, event);
          if (result.isErr()) {
            conflictsChecked += 1;
            expect(state).toEqual(before);
            expect(order(state)).toEqual(order(before));
            expectDeepFrozen(state);
            // And through fold: the state comes back equal, with one conflict.
            const folded = fold(state, [event]);
            expect(folded.state).toEqual(before);
            expect(folded.conflicts).toEqual([{ ...result.error, index: 0 }]);
          } else {
            state = result.value;
          }
        }
      }),
      RUNS,
    );
    expect(conflictsChecked).toBeGreaterThan(RUNS.numRuns);
  });

  it('(c) duplicate delivery (each event 1–3 times in a row) gives the same statuses', () => {
    fc.assert(
      fc.property(
        startArb,
        eventStreamArb().chain((events) =>
          fc
            .array(fc.integer({ min: 1, max: 3 }), {
              minLength: events.length,
              maxLength: events.length,
            })
            .map((times) => ({ events, times })),
        ),
        (start, { events, times }) => {
          const duplicated = events.flatMap((event, i) =>
            Array.from({ length: times[i] ?? 1 }, () => event),
          );
          const once = fold(start, events).state;
          const many = fold(start, duplicated).state;
          expect(statuses(many)).toEqual(statuses(once));
          expect(order(many)).toEqual(order(once));
        },
      ),
      RUNS,
    );
  });

  it('(d) fold is associative over splits: fold(fold(s, a), b) = fold(s, a ++ b)', () => {
    fc.assert(
      fc.property(startArb, splitStreamArb(), (start, [a, b]) => {
        const first = fold(start, a);
        const second = fold(first.state, b);
        const whole = fold(start, [...a, ...b]);
        expect(second.state).toEqual(whole.state);
        expect(order(second.state)).toEqual(order(whole.state));
        expect([
          ...first.conflicts,
          ...second.conflicts.map((c) => ({ ...c, index: c.index + a.length })),
        ]).toEqual(whole.conflicts);
      }),
      RUNS,
    );
  });

  it('(e) published states are deeply frozen and the input state is never mutated', () => {
    fc.assert(
      fc.property(startArb, eventStreamArb(), (start, events) => {
        const before = structuredClone(start);
        const beforeOrder = order(start);
        const folded = fold(start, events);
        expect(start).toEqual(before);
        expect(order(start)).toEqual(beforeOrder);
        expectDeepFrozen(folded.state);

        let state = start;
        for (const event of events) {
          const input = state;
          const inputCopy = structuredClone(input);
          const result = reduce(input, event);
          expect(input).toEqual(inputCopy);
          if (result.isOk()) state = result.value;
        }
        expectDeepFrozen(state);
        expect(start).toEqual(before);
      }),
      RUNS,
    );
  });

  it('(e) fold does not mutate an unfrozen input state either', () => {
    fc.assert(
      fc.property(eventStreamArb({ maxLength: 15 }), eventStreamArb(), (prefix, events) => {
        const frozen = fold(initialState(), prefix).state;
        // A plain, unfrozen copy, as a caller might build or deserialise.
        const start = structuredClone(frozen);
        const snapshot = structuredClone(start);
        fold(start, events);
        expect(start).toEqual(snapshot);
      }),
      RUNS,
    );
  });
  it('(f) fold and reduce agree on the times, and each outcome time is the receivedAt of the event that made it so', () => {
    const outcomesSeen = new Set<string>();
    fc.assert(
      fc.property(
        startArb,
        eventStreamArb().chain((events) =>
          fc.tuple(
            fc.constant(events),
            // Some bare lines (no receivedAt) among timed ones.
            fc.array(fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: undefined }), {
              minLength: events.length,
              maxLength: events.length,
            }),
          ),
        ),
        (start, [events, minutes]) => {
          const at = minutes.map((m) =>
            m === undefined ? undefined : new Date(Date.UTC(2026, 0, 1) + m * 60_000).toISOString(),
          );
          const folded = fold(start, events, at);
          let state = start;
          events.forEach((event, i) => {
            const before = state;
            const next = reduce(state, event, at[i]);
            if (next.isErr()) return;
            state = next.value;
            if (!('signRequestId' in event)) return;
            // The time of each outcome this event reached is its own receivedAt (or none).
            const was = before.signRequests.get(event.signRequestId);
            const now = state.signRequests.get(event.signRequestId);
            const expected = at[i] ?? null;
            if (now !== undefined && now.status !== was?.status) {
              if (now.status === 'completed') expect(now.completedAt).toBe(expected);
              if (now.status === 'declined') expect(now.declinedAt).toBe(expected);
              if (now.status === 'completed' || now.status === 'declined') {
                outcomesSeen.add(`request ${now.status}`);
                const from = expected === null ? (was?.outcomeFrom ?? null) : 'event';
                expect(now.outcomeFrom).toBe(from);
              }
            }
            if (now?.deleted === true && was?.deleted !== true) {
              expect(now.deletedAt).toBe(expected);
              outcomesSeen.add('request deleted');
            }
            if ('participantId' in event) {
              const p = state.participants.get(event.signRequestId)?.get(event.participantId);
              const q = before.participants.get(event.signRequestId)?.get(event.participantId);
              if (p !== undefined && p.status !== q?.status) {
                if (p.status === 'signed') expect(p.signedAt).toBe(expected);
                if (p.status === 'declined') expect(p.declinedAt).toBe(expected);
                if (p.status === 'signed' || p.status === 'declined') {
                  outcomesSeen.add(`participant ${p.status}`);
                }
              }
            }
          });
          expect(folded.state).toEqual(state);
          // Outcome times never outlive their outcome.
          for (const r of listSignRequests(state)) {
            if (r.status !== 'completed') expect(r.completedAt).toBeNull();
            if (r.status !== 'declined') expect(r.declinedAt).toBeNull();
            if (!r.deleted) expect(r.deletedAt).toBeNull();
          }
          for (const p of listParticipants(state)) {
            if (p.status !== 'signed') expect(p.signedAt).toBeNull();
            if (p.status !== 'declined') expect(p.declinedAt).toBeNull();
          }
        },
      ),
      RUNS,
    );
    expect([...outcomesSeen].sort()).toEqual([
      'participant declined',
      'participant signed',
      'request completed',
      'request declined',
      'request deleted',
    ]);
  });
});
