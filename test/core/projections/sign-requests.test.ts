import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../../src/core/builders/plain-builders.js';
import { signRequestId, templateId } from '../../../src/core/ids.js';
import { loadSignRequest } from '../../../src/core/projections/load-sign-request.js';
import {
  getSignRequest,
  getTemplate,
  initialState,
  listSignRequests,
  type ProjectionState,
} from '../../../src/core/projections/projection-state.js';
import { decodeSignRequest } from '../../../src/core/sign-request/decode-sign-request.js';
import {
  given,
  givenDraft,
  whenApplied,
  whenConflict,
  whenNoOp,
} from '../../support/specification.js';

const R = signRequestId(1000);
const request = (state: ProjectionState) => getSignRequest(state, R);

const REQUEST_EVENTS = [
  'sign-request-sent',
  'sign-request-completed',
  'sign-request-declined',
  'sign-request-deleted',
] as const;
const PARTICIPANT_EVENTS = [
  'participant-sent',
  'participant-viewed',
  'participant-downloaded',
  'participant-signed',
  'participant-declined',
] as const;

describe('sign request: first sight creates it', () => {
  it.each([
    ['sign-request-sent', 'sent'],
    ['sign-request-completed', 'completed'],
    ['sign-request-declined', 'declined'],
  ] as const)('%s on an unknown request creates it as %s', (type, status) => {
    const state = whenApplied(
      initialState(),
      buildEvent(type, { companyId: 2, signRequestName: 'X' }),
    );
    expect(request(state)).toMatchObject({
      id: 1000,
      companyId: 2,
      name: 'X',
      status,
      deleted: false,
      ownerId: 10,
      ownerName: 'Olive Owner',
      senderId: 20,
      senderName: 'Sam Sender',
    });
  });

  it('events with template members record the template of the request', () => {
    const state = whenApplied(initialState(), buildEvent('sign-request-sent'));
    expect(request(state)).toMatchObject({ templateId: 100, templateName: 'NDA' });
    const declined = whenApplied(initialState(), buildEvent('sign-request-declined'));
    expect(request(declined)).not.toHaveProperty('templateId');
  });

  it('a first-seen sign-request-deleted creates it as draft, deleted', () => {
    const state = whenApplied(initialState(), buildEvent('sign-request-deleted'));
    expect(request(state)).toMatchObject({ id: 1000, status: 'draft', deleted: true });
  });

  it('does not create a template record', () => {
    const state = whenApplied(initialState(), buildEvent('sign-request-sent'));
    expect(getTemplate(state, templateId(100))).toBeUndefined();
  });
});

describe('sign request: forward moves apply, even skipping a step', () => {
  it.each([
    ['draft', 'sign-request-sent', 'sent'],
    ['draft', 'sign-request-completed', 'completed'],
    ['draft', 'sign-request-declined', 'declined'],
  ] as const)('%s + %s → %s', (_from, type, to) => {
    const state = whenApplied(givenDraft(), buildEvent(type));
    expect(request(state)?.status).toBe(to);
  });

  it.each([
    ['sign-request-completed', 'completed'],
    ['sign-request-declined', 'declined'],
  ] as const)('sent + %s → %s', (type, to) => {
    const state = whenApplied(given(buildEvent('sign-request-sent')), buildEvent(type));
    expect(request(state)?.status).toBe(to);
    expect(request(state)?.deleted).toBe(false);
  });
});

describe('sign request: backward and final → other final conflict', () => {
  it.each([
    ['sign-request-completed', 'sign-request-sent', 'completed'],
    ['sign-request-declined', 'sign-request-sent', 'declined'],
    ['sign-request-completed', 'sign-request-declined', 'completed'],
    ['sign-request-declined', 'sign-request-completed', 'declined'],
  ] as const)('after %s, %s conflicts (invalid-transition)', (first, type, current) => {
    const state = given(buildEvent(first));
    const conflict = whenConflict(state, buildEvent(type));
    expect(conflict).toMatchObject({
      kind: 'invalid-transition',
      entity: 'sign-request',
      id: 1000,
      currentStatus: current,
      eventType: type,
    });
    expect(conflict.message).toContain('sign-request 1000');
    expect(conflict.message).toContain(type);
  });

  it('sent → draft cannot happen through an event, and a loaded draft does not undo sent', () => {
    const snapshot = decodeSignRequest({
      id: 1000,
      name: 'NDA for Ada',
      status: 'draft',
      formType: 'Form',
      savedTime: '2024-01-02 03:04:05',
    })._unsafeUnwrap();
    const conflict = loadSignRequest(
      given(buildEvent('sign-request-sent')),
      snapshot,
    )._unsafeUnwrapErr();
    expect(conflict).toMatchObject({ kind: 'invalid-transition', currentStatus: 'sent' });
  });
});

describe('sign request: repeated events', () => {
  it.each(['sign-request-sent', 'sign-request-completed', 'sign-request-declined'] as const)(
    'a repeated identical %s is a no-op returning the same state object',
    (type) => {
      whenNoOp(given(buildEvent(type)), buildEvent(type));
    },
  );

  it('a late sign-request-sent after completion (same names) conflicts: it would move back', () => {
    // "changes nothing" is judged with the status the event implies: sent ≠ completed.
    const state = given(buildEvent('sign-request-sent'), buildEvent('sign-request-completed'));
    expect(whenConflict(state, buildEvent('sign-request-sent')).kind).toBe('invalid-transition');
  });
});

describe('sign request: names, latest wins', () => {
  it('same status with new names and sender applies and keeps the status', () => {
    const state = given(buildEvent('sign-request-sent', { signRequestName: 'A' }));
    const next = whenApplied(
      state,
      buildEvent('sign-request-sent', {
        signRequestName: 'B',
        senderId: 21,
        senderName: 'Sue',
        ownerName: 'Otto',
        templateName: 'NDA v2',
      }),
    );
    expect(request(next)).toMatchObject({
      name: 'B',
      status: 'sent',
      senderId: 21,
      senderName: 'Sue',
      ownerName: 'Otto',
      templateName: 'NDA v2',
    });
  });

  it('a renamed repeat on a final request applies (names only)', () => {
    const state = given(buildEvent('sign-request-completed', { signRequestName: 'A' }));
    const next = whenApplied(state, buildEvent('sign-request-completed', { signRequestName: 'B' }));
    expect(request(next)).toMatchObject({ name: 'B', status: 'completed' });
  });

  it('a forward move takes the names of the event', () => {
    const state = given(buildEvent('sign-request-sent', { signRequestName: 'A' }));
    const next = whenApplied(state, buildEvent('sign-request-declined', { signRequestName: 'B' }));
    expect(request(next)).toMatchObject({ name: 'B', status: 'declined' });
  });
});

describe('sign request: deletion', () => {
  it.each([
    ['sign-request-sent', 'sent'],
    ['sign-request-completed', 'completed'],
    ['sign-request-declined', 'declined'],
  ] as const)('deleting a %s request keeps its last status (%s)', (first, status) => {
    const state = whenApplied(given(buildEvent(first)), buildEvent('sign-request-deleted'));
    expect(request(state)).toMatchObject({ status, deleted: true });
  });

  it('deleting a draft request keeps draft', () => {
    const state = whenApplied(givenDraft(), buildEvent('sign-request-deleted'));
    expect(request(state)).toMatchObject({ status: 'draft', deleted: true });
  });

  it('a repeated delete is a no-op, even with new names', () => {
    const state = given(buildEvent('sign-request-sent'), buildEvent('sign-request-deleted'));
    whenNoOp(state, buildEvent('sign-request-deleted'));
    whenNoOp(
      state,
      buildEvent('sign-request-deleted', { signRequestName: 'Renamed', senderId: 99 }),
    );
  });

  it.each([...REQUEST_EVENTS.filter((t) => t !== 'sign-request-deleted'), ...PARTICIPANT_EVENTS])(
    'after deletion, %s conflicts (kind deleted)',
    (type) => {
      const state = given(buildEvent('sign-request-sent'), buildEvent('sign-request-deleted'));
      const conflict = whenConflict(state, buildEvent(type));
      expect(conflict).toMatchObject({
        kind: 'deleted',
        entity: 'sign-request',
        id: 1000,
        currentStatus: 'sent',
        eventType: type,
      });
      expect(conflict.message).toContain('deleted');
    },
  );

  it('after a first-seen delete, a participant event conflicts and creates no participant', () => {
    const state = given(buildEvent('sign-request-deleted'));
    const conflict = whenConflict(state, buildEvent('participant-signed'));
    expect(conflict).toMatchObject({ kind: 'deleted', currentStatus: 'draft' });
    // whenConflict checks that fold's resulting state equals `state`: no participant was created.
  });

  it('isolation and references are checked before deletion', () => {
    const state = given(buildEvent('sign-request-sent'), buildEvent('sign-request-deleted'));
    expect(whenConflict(state, buildEvent('sign-request-deleted', { companyId: 2 })).kind).toBe(
      'company-mismatch',
    );
    expect(
      whenConflict(state, buildEvent('sign-request-completed', { templateId: 101 })).kind,
    ).toBe('reference-mismatch');
  });
});

describe('sign request: template references', () => {
  it('a templateId change conflicts (reference-mismatch), also through participant events', () => {
    const state = given(buildEvent('sign-request-sent', { templateId: 100 }));
    for (const type of [
      'sign-request-sent',
      'sign-request-completed',
      'participant-sent',
      'participant-signed',
    ] as const) {
      const conflict = whenConflict(state, buildEvent(type, { templateId: 101 }));
      expect(conflict).toMatchObject({
        kind: 'reference-mismatch',
        reference: 'templateId',
        expected: 100,
        received: 101,
        entity: 'sign-request',
        id: 1000,
        currentStatus: 'sent',
        eventType: type,
      });
    }
  });

  it('a request first seen without a template adopts the first template named', () => {
    const state = given(buildEvent('participant-viewed'));
    expect(request(state)).not.toHaveProperty('templateId');
    const next = whenApplied(state, buildEvent('sign-request-completed', { templateId: 101 }));
    expect(request(next)).toMatchObject({ templateId: 101, status: 'completed' });
  });

  it('sign-request-sent naming a deleted template conflicts on the template', () => {
    const state = given(buildEvent('template-deleted', { templateId: 100 }));
    const conflict = whenConflict(state, buildEvent('sign-request-sent', { templateId: 100 }));
    expect(conflict).toMatchObject({
      kind: 'deleted',
      entity: 'template',
      id: 100,
      currentStatus: 'deleted',
      eventType: 'sign-request-sent',
    });
    expect(conflict.message).toContain('1000');
  });

  it('sign-request-sent of a draft request naming a deleted template conflicts too', () => {
    const state = whenApplied(givenDraft(), buildEvent('template-deleted', { templateId: 100 }));
    const conflict = whenConflict(state, buildEvent('sign-request-sent', { templateId: 100 }));
    expect(conflict).toMatchObject({ kind: 'deleted', entity: 'template', id: 100 });
  });

  it('a template that is only inactive does not stop sign-request-sent', () => {
    const state = given(buildEvent('template-inactivated', { templateId: 100 }));
    const next = whenApplied(state, buildEvent('sign-request-sent', { templateId: 100 }));
    expect(request(next)?.status).toBe('sent');
  });

  it('a repeated sign-request-sent that changes nothing stays a no-op after its template is deleted', () => {
    const state = given(buildEvent('sign-request-sent'), buildEvent('template-deleted'));
    whenNoOp(state, buildEvent('sign-request-sent'));
  });
});

describe('sign request: isolation', () => {
  it.each([...REQUEST_EVENTS, ...PARTICIPANT_EVENTS])(
    '%s from another company conflicts (company-mismatch) and changes nothing',
    (type) => {
      const state = given(buildEvent('sign-request-sent', { companyId: 1 }));
      const conflict = whenConflict(
        state,
        buildEvent(type, { companyId: 2, signRequestName: 'Hijack' }),
      );
      expect(conflict).toMatchObject({
        kind: 'company-mismatch',
        entity: 'sign-request',
        id: 1000,
        currentStatus: 'sent',
        eventType: type,
        recordCompanyId: 1,
        eventCompanyId: 2,
      });
    },
  );
});

describe('sign request: listing', () => {
  it('lists requests in first-seen order and getSignRequest misses unknown ids', () => {
    const state = given(
      buildEvent('sign-request-sent', { signRequestId: 3 }),
      buildEvent('sign-request-sent', { signRequestId: 1 }),
      buildEvent('sign-request-completed', { signRequestId: 3 }),
      buildEvent('participant-viewed', { signRequestId: 2 }),
    );
    expect([...listSignRequests(state)].map((r) => [r.id, r.status])).toEqual([
      [3, 'completed'],
      [1, 'sent'],
      [2, 'sent'],
    ]);
    expect(getSignRequest(state, signRequestId(4))).toBeUndefined();
  });
});
