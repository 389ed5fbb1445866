/**
 * Given / when / then helpers for reducer specifications (after Emmett's
 * specifications). Every `when*` runs the event through both `reduce` (immer)
 * and `fold` (the working copy) and checks that they agree, so each rule test
 * also checks the two drivers against each other.
 */
import { expect } from 'vitest';
import type { SignEvent } from '../../src/core/events/sign-event.js';
import { companyId } from '../../src/core/ids.js';
import type { Conflict } from '../../src/core/projections/conflict.js';
import { loadSignRequest } from '../../src/core/projections/load-sign-request.js';
import { initialState, type ProjectionState } from '../../src/core/projections/projection-state.js';
import { fold, reduce } from '../../src/core/projections/reduce.js';
import { decodeSignRequest } from '../../src/core/sign-request/decode-sign-request.js';

/** The state after events that must all apply. */
export const given = (...events: SignEvent[]): ProjectionState => {
  const { state, conflicts } = fold(initialState(), events);
  expect(conflicts).toEqual([]);
  return state;
};

/** Request 1000 of company 1, known only from an API representation, in `draft`. */
export const givenDraft = (): ProjectionState => {
  const snapshot = decodeSignRequest({
    id: 1000,
    name: 'NDA for Ada',
    status: 'draft',
    formType: 'Form',
    savedTime: '2024-01-02 03:04:05',
  })._unsafeUnwrap();
  return loadSignRequest(initialState(), snapshot, { companyId: companyId(1) })._unsafeUnwrap();
};

/** Applies an event that must apply; returns the new state. */
export const whenApplied = (state: ProjectionState, event: SignEvent): ProjectionState => {
  const result = reduce(state, event);
  if (result.isErr()) throw new Error(`expected ok, got conflict: ${result.error.message}`);
  const folded = fold(state, [event]);
  expect(folded.conflicts).toEqual([]);
  expect(folded.state).toEqual(result.value);
  return result.value;
};

/** Applies an event that must conflict; checks the state is untouched and returns the conflict. */
export const whenConflict = (state: ProjectionState, event: SignEvent): Conflict => {
  const before = structuredClone(state);
  const result = reduce(state, event);
  if (result.isOk()) throw new Error('expected a conflict, got ok');
  expect(state).toEqual(before);
  const folded = fold(state, [event]);
  expect(folded.conflicts).toEqual([{ ...result.error, index: 0 }]);
  expect(folded.state).toEqual(state);
  return result.error;
};

/** Applies an event that must change nothing: `reduce` returns the very same state. */
export const whenNoOp = (state: ProjectionState, event: SignEvent): void => {
  const result = reduce(state, event);
  expect(result.isOk()).toBe(true);
  expect(result._unsafeUnwrap()).toBe(state);
  const folded = fold(state, [event]);
  expect(folded.conflicts).toEqual([]);
  expect(folded.state).toEqual(state);
};
