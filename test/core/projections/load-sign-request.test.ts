import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../../src/core/builders/plain-builders.js';
import { companyId, participantId, signRequestId } from '../../../src/core/ids.js';
import {
  loadSignRequest,
  type RepresentationOrigin,
} from '../../../src/core/projections/load-sign-request.js';
import {
  getParticipant,
  getSignRequest,
  initialState,
  listParticipants,
  type ProjectionState,
} from '../../../src/core/projections/projection-state.js';
import { reduce } from '../../../src/core/projections/reduce.js';
import { decodeSignRequest } from '../../../src/core/sign-request/decode-sign-request.js';
import type { SignRequest } from '../../../src/core/sign-request/sign-request.js';
import { given } from '../../support/specification.js';

const R = signRequestId(1000);
const request = (state: ProjectionState) => getSignRequest(state, R);
const participant = (state: ProjectionState, id = 5) => getParticipant(state, R, participantId(id));

/** A spec-shaped representation (§2), decoded by the real decoder. */
const snapshot = (changes: Record<string, unknown> = {}): SignRequest =>
  decodeSignRequest({
    id: 1000,
    name: 'NDA for Ada',
    status: 'Sent',
    formType: 'Document',
    savedTime: '2024-02-29 23:59:59',
    participants: [
      {
        id: 5,
        name: 'Ada',
        email: 'ada@example.com',
        status: 'Sent',
        role: { id: 7, name: 'Signer', sequence: 0 },
        fieldData: [{ id: 1, fieldId: 3, imageContent: 'aGk=', imageMimetype: 'image/png' }],
      },
      {
        id: 6,
        name: 'Grace',
        email: 'grace@example.com',
        status: 'Viewed',
        role: { id: 8, name: 'Witness', sequence: 1 },
      },
    ],
    fields: [{ id: 3, roleId: 7, required: true, isMasked: false, type: 'signature' }],
    ...changes,
  })._unsafeUnwrap();

const participantsWith = (...overrides: Record<string, unknown>[]) => ({
  participants: overrides.map((o) => ({
    id: 5,
    name: 'Ada',
    role: { id: 7, name: 'Signer', sequence: 0 },
    ...o,
  })),
  fields: [],
});

const loadOk = (state: ProjectionState, s: SignRequest, origin?: RepresentationOrigin) => {
  const before = structuredClone(state);
  const result = loadSignRequest(state, s, origin);
  if (result.isErr()) throw new Error(`expected ok, got ${result.error.message}`);
  expect(state).toEqual(before);
  return result.value;
};
const loadConflict = (state: ProjectionState, s: SignRequest, origin?: RepresentationOrigin) => {
  const before = structuredClone(state);
  const result = loadSignRequest(state, s, origin);
  if (result.isOk()) throw new Error('expected a conflict');
  expect(state).toEqual(before);
  return result.error;
};

describe('loadSignRequest: creating from a representation', () => {
  it('creates the request and its participants with role, sequence, email and fields', () => {
    const state = loadOk(initialState(), snapshot(), { companyId: companyId(1) });
    expect(request(state)).toEqual({
      id: 1000,
      companyId: 1,
      name: 'NDA for Ada',
      status: 'sent',
      deleted: false,
      formType: 'Document',
      savedTime: '2024-02-29 23:59:59',
      fields: [{ id: 3, roleId: 7, required: true, isMasked: false, type: 'signature' }],
      // Loaded from the API: no event times.
      sentAt: null,
      completedAt: null,
      declinedAt: null,
      deletedAt: null,
      outcomeFrom: null,
      lastEventAt: null,
    });
    expect(participant(state)).toEqual({
      signRequestId: 1000,
      id: 5,
      companyId: 1,
      name: 'Ada',
      email: 'ada@example.com',
      status: 'sent',
      viewCount: 0,
      downloadCount: 0,
      roleId: 7,
      roleName: 'Signer',
      sequence: 0,
      sentAt: null,
      viewedAt: null,
      signedAt: null,
      declinedAt: null,
      outcomeFrom: null,
      lastEventAt: null,
    });
    expect(participant(state, 6)).toMatchObject({
      status: 'viewed',
      roleId: 8,
      roleName: 'Witness',
      sequence: 1,
      email: 'grace@example.com',
    });
    expect([...listParticipants(state, R)].map((p) => p.id)).toEqual([5, 6]);
  });

  it.each(['draft', 'sent', 'completed', 'declined'] as const)(
    'keeps status %s (any letter case on the wire)',
    (status) => {
      const state = loadOk(initialState(), snapshot({ status: status.toUpperCase() }));
      expect(request(state)?.status).toBe(status);
    },
  );

  it('without an origin the company is unknown (null) until the first event sets it', () => {
    const loaded = loadOk(initialState(), snapshot());
    expect(request(loaded)?.companyId).toBeNull();
    expect(participant(loaded)?.companyId).toBeNull();
    const next = reduce(loaded, buildEvent('participant-viewed', { companyId: 2 }))._unsafeUnwrap();
    expect(request(next)?.companyId).toBe(2);
    expect(participant(next)?.companyId).toBe(2);
    // From then on, the company is fixed.
    const other = reduce(next, buildEvent('sign-request-completed', { companyId: 1 }));
    expect(other._unsafeUnwrapErr()).toMatchObject({
      kind: 'company-mismatch',
      recordCompanyId: 2,
      eventCompanyId: 1,
    });
  });

  it('a request event is also enough to adopt the company', () => {
    const loaded = loadOk(initialState(), snapshot());
    const next = reduce(
      loaded,
      buildEvent('sign-request-completed', { companyId: 2 }),
    )._unsafeUnwrap();
    expect(request(next)).toMatchObject({ companyId: 2, status: 'completed', templateId: 100 });
  });

  it('a repeated identical event still adopts the company (a null company is a change)', () => {
    const loaded = loadOk(initialState(), snapshot({ participants: [], fields: [] }));
    const first = reduce(
      loaded,
      buildEvent('sign-request-sent', { signRequestName: 'NDA for Ada' }),
    )._unsafeUnwrap();
    expect(first).not.toBe(loaded);
    expect(request(first)?.companyId).toBe(1);
  });

  it('an unknown participant status makes a new participant sent', () => {
    const state = loadOk(initialState(), snapshot(participantsWith({ status: 'Bounced' })));
    expect(participant(state)?.status).toBe('sent');
  });

  it('skips participants without an id', () => {
    const state = loadOk(initialState(), snapshot({ participants: [{ name: 'Nobody' }] }));
    expect([...listParticipants(state, R)]).toEqual([]);
  });

  it('the loaded request then follows the event rules (draft → sent by a participant)', () => {
    const loaded = loadOk(initialState(), snapshot({ status: 'draft', ...participantsWith({}) }), {
      companyId: companyId(1),
    });
    // Listed without a status: not sent the request yet, so not a participant of the projection.
    expect(participant(loaded)).toBeUndefined();
    const next = reduce(loaded, buildEvent('participant-signed'))._unsafeUnwrap();
    expect(request(next)?.status).toBe('sent');
    expect(participant(next)).toMatchObject({ status: 'signed' });
  });

  it('a participant listed with a status is created; one without is left out until an event or a status says so', () => {
    const loaded = loadOk(
      initialState(),
      snapshot({ status: 'Sent', ...participantsWith({ status: 'Viewed' }, { id: 6 }) }),
      { companyId: companyId(1) },
    );
    expect(participant(loaded)).toMatchObject({ status: 'viewed', sequence: 0 });
    expect(participant(loaded, 6)).toBeUndefined();
  });
});

describe('loadSignRequest: merging into known records, forward only', () => {
  it('moves a known request forward and keeps what events taught', () => {
    const state = given(buildEvent('sign-request-sent'), buildEvent('participant-viewed'));
    const next = loadOk(
      state,
      snapshot({ status: 'Completed', ...participantsWith({ status: 'Signed' }) }),
      {
        companyId: companyId(1),
      },
    );
    expect(request(next)).toMatchObject({
      status: 'completed',
      companyId: 1,
      templateId: 100,
      senderId: 20,
      formType: 'Document',
    });
    expect(participant(next)).toMatchObject({
      status: 'signed',
      viewCount: 1,
      sequence: 0,
      roleName: 'Signer',
    });
  });

  it('the same status again is accepted and merges the details', () => {
    const state = given(buildEvent('sign-request-sent'));
    const next = loadOk(state, snapshot({ name: 'Renamed' }));
    expect(request(next)).toMatchObject({ status: 'sent', name: 'Renamed', companyId: 1 });
  });

  it('an unknown participant status leaves a known participant’s status as it was', () => {
    const state = given(buildEvent('participant-viewed'));
    const next = loadOk(state, snapshot(participantsWith({ status: 'Bounced' })));
    expect(participant(next)?.status).toBe('viewed');
  });

  it.each([
    ['sign-request-completed', 'Sent', 'completed'],
    ['sign-request-completed', 'Declined', 'completed'],
    ['sign-request-declined', 'Completed', 'declined'],
    ['sign-request-sent', 'Draft', 'sent'],
  ] as const)('after %s, a representation with status %s conflicts', (type, status, current) => {
    const conflict = loadConflict(given(buildEvent(type)), snapshot({ status }));
    expect(conflict).toMatchObject({
      kind: 'invalid-transition',
      entity: 'sign-request',
      id: 1000,
      currentStatus: current,
      eventType: 'load-sign-request',
    });
  });

  it('an older participant status conflicts on the participant', () => {
    const state = given(buildEvent('participant-signed'));
    const conflict = loadConflict(state, snapshot(participantsWith({ status: 'Viewed' })));
    expect(conflict).toMatchObject({
      kind: 'invalid-transition',
      entity: 'participant',
      id: 5,
      signRequestId: 1000,
      currentStatus: 'signed',
      eventType: 'load-sign-request',
    });
  });

  it('a deleted request refuses the representation', () => {
    const state = given(buildEvent('sign-request-sent'), buildEvent('sign-request-deleted'));
    const conflict = loadConflict(state, snapshot());
    expect(conflict).toMatchObject({
      kind: 'deleted',
      entity: 'sign-request',
      currentStatus: 'sent',
      eventType: 'load-sign-request',
    });
  });

  it('a representation fetched for another company conflicts', () => {
    const state = given(buildEvent('sign-request-sent', { companyId: 1 }));
    const conflict = loadConflict(state, snapshot(), { companyId: companyId(2) });
    expect(conflict).toMatchObject({
      kind: 'company-mismatch',
      entity: 'sign-request',
      recordCompanyId: 1,
      eventCompanyId: 2,
      eventType: 'load-sign-request',
    });
    // The company is checked before deletion.
    const deleted = given(buildEvent('sign-request-sent'), buildEvent('sign-request-deleted'));
    expect(loadConflict(deleted, snapshot(), { companyId: companyId(2) }).kind).toBe(
      'company-mismatch',
    );
  });

  it('a representation with the same origin company, or none, merges', () => {
    const state = given(buildEvent('sign-request-sent', { companyId: 1 }));
    expect(request(loadOk(state, snapshot(), { companyId: companyId(1) }))?.companyId).toBe(1);
    expect(request(loadOk(state, snapshot()))?.companyId).toBe(1);
  });

  it('a participant whose role changed conflicts', () => {
    const state = given(buildEvent('participant-sent', { roleId: 7 }));
    const conflict = loadConflict(
      state,
      snapshot(participantsWith({ role: { id: 8, name: 'Signer', sequence: 0 } })),
    );
    expect(conflict).toMatchObject({
      kind: 'reference-mismatch',
      reference: 'roleId',
      expected: 7,
      received: 8,
      entity: 'participant',
      id: 5,
      eventType: 'load-sign-request',
    });
  });

  it('a conflict in the second participant leaves the first untouched', () => {
    const state = given(buildEvent('participant-sent', { participantId: 6, roleId: 8 }));
    const s = snapshot({
      participants: [
        { id: 5, name: 'Ada', status: 'Signed', role: { id: 7 } },
        { id: 6, name: 'Grace', status: 'Sent', role: { id: 9 } },
      ],
      fields: [],
    });
    const conflict = loadConflict(state, s);
    // The conflict names participant 6, so participant 5 raised none; loadConflict
    // checks that the state is unchanged all the same (no new state is published).
    expect(conflict).toMatchObject({ kind: 'reference-mismatch', id: 6 });
  });

  it('neither mutates nor freezes the representation it is given', () => {
    const s = snapshot();
    const copy = structuredClone(s);
    const state = loadOk(initialState(), s);
    expect(s).toEqual(copy);
    expect(Object.isFrozen(s.fields)).toBe(false);
    expect(Object.isFrozen(s.fields?.[0])).toBe(false);
    expect(request(state)?.fields).toEqual(s.fields);
    expect(Object.isFrozen(request(state)?.fields)).toBe(true);
  });

  it('publishes a frozen state', () => {
    const state = loadOk(initialState(), snapshot());
    expect(Object.isFrozen(state)).toBe(true);
    expect(Object.isFrozen(request(state))).toBe(true);
    expect(Object.isFrozen(participant(state))).toBe(true);
  });
});
