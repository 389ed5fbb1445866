import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../../src/core/builders/plain-builders.js';
import type { SignEvent } from '../../../src/core/events/sign-event.js';
import { participantId, signRequestId } from '../../../src/core/ids.js';
import {
  getParticipant,
  getSignRequest,
  initialState,
  listParticipants,
  type ProjectionState,
} from '../../../src/core/projections/projection-state.js';
import { fold, reduce } from '../../../src/core/projections/reduce.js';
import { events, given as givenEvents } from '../../../src/testing/index.js';
import {
  given,
  givenDraft,
  whenApplied,
  whenConflict,
  whenNoOp,
} from '../../support/specification.js';

const R = signRequestId(1000);
const P = participantId(5);
const request = (state: ProjectionState) => getSignRequest(state, R);
const participant = (state: ProjectionState, id = 5) => getParticipant(state, R, participantId(id));

const PARTICIPANT_EVENTS = [
  'participant-sent',
  'participant-viewed',
  'participant-downloaded',
  'participant-signed',
  'participant-declined',
] as const;
type ParticipantType = (typeof PARTICIPANT_EVENTS)[number];

/** A sent request whose participant 5 went through the given events. */
const givenParticipant = (...types: ParticipantType[]): ProjectionState =>
  given(buildEvent('sign-request-sent'), ...types.map((t) => buildEvent(t)));

describe('participant events imply the request was sent', () => {
  it.each([
    ['participant-sent', 'sent', 0, 0],
    ['participant-viewed', 'viewed', 1, 0],
    ['participant-downloaded', 'sent', 0, 1],
    ['participant-signed', 'signed', 0, 0],
    ['participant-declined', 'declined', 0, 0],
  ] as const)(
    '%s on an unknown request creates the request as sent and the participant as %s',
    (type, status, viewCount, downloadCount) => {
      const state = whenApplied(
        initialState(),
        buildEvent(type, { participantName: 'Ada', roleName: 'Signer' }),
      );
      expect(request(state)).toMatchObject({
        id: 1000,
        companyId: 1,
        status: 'sent',
        deleted: false,
        name: 'NDA for Ada',
      });
      expect(participant(state)).toEqual({
        signRequestId: 1000,
        id: 5,
        companyId: 1,
        name: 'Ada',
        status,
        viewCount,
        downloadCount,
        roleId: 7,
        roleName: 'Signer',
        // A reduce without receivedAt: no times.
        sentAt: null,
        viewedAt: null,
        signedAt: null,
        declinedAt: null,
        outcomeFrom: null,
        lastEventAt: null,
      });
    },
  );

  it.each([
    ['participant-sent', 'sent', 0, 0],
    ['participant-viewed', 'viewed', 1, 0],
    ['participant-downloaded', 'sent', 0, 1],
    ['participant-signed', 'signed', 0, 0],
    ['participant-declined', 'declined', 0, 0],
  ] as const)(
    '%s on a draft request makes it sent and the participant %s',
    (type, status, viewCount, downloadCount) => {
      const state = whenApplied(givenDraft(), buildEvent(type));
      expect(request(state)?.status).toBe('sent');
      expect(participant(state)).toMatchObject({ status, viewCount, downloadCount });
    },
  );

  it('participant-sent and participant-signed carry the template to the request', () => {
    expect(request(given(buildEvent('participant-sent', { templateId: 101 })))?.templateId).toBe(
      101,
    );
    expect(request(given(buildEvent('participant-signed', { templateId: 101 })))?.templateId).toBe(
      101,
    );
    expect(request(given(buildEvent('participant-viewed')))).not.toHaveProperty('templateId');
  });

  it('a participant event names the request (latest wins) without changing its status', () => {
    const state = given(buildEvent('sign-request-completed', { signRequestName: 'A' }));
    const next = whenApplied(state, buildEvent('participant-viewed', { signRequestName: 'B' }));
    expect(request(next)).toMatchObject({ name: 'B', status: 'completed' });
  });
});

describe('participant events on a completed request', () => {
  const completed = (...before: SignEvent[]) =>
    given(buildEvent('sign-request-sent'), ...before, buildEvent('sign-request-completed'));

  it('a late participant-signed of an unknown participant applies', () => {
    const state = whenApplied(completed(), buildEvent('participant-signed'));
    expect(participant(state)?.status).toBe('signed');
    expect(request(state)?.status).toBe('completed');
  });

  it.each(['participant-sent', 'participant-viewed'] as const)(
    'a late participant-signed of a participant in %s applies',
    (type) => {
      const state = whenApplied(completed(buildEvent(type)), buildEvent('participant-signed'));
      expect(participant(state)?.status).toBe('signed');
    },
  );

  it.each(['participant-sent', 'participant-declined'] as const)(
    '%s conflicts (invalid-transition on the request)',
    (type) => {
      const conflict = whenConflict(completed(), buildEvent(type));
      expect(conflict).toMatchObject({
        kind: 'invalid-transition',
        entity: 'sign-request',
        id: 1000,
        currentStatus: 'completed',
        eventType: type,
      });
    },
  );

  it('participant-signed of a participant who declined conflicts on the participant', () => {
    givenEvents(
      events.signRequestSent(),
      events.participantDeclined(),
      events.signRequestCompleted(),
    )
      .when(events.participantSigned())
      .thenConflict({
        kind: 'invalid-transition',
        entity: 'participant',
        id: 5,
        signRequestId: 1000,
        currentStatus: 'declined',
        eventType: 'participant-signed',
      })
      .thenParticipant(1000, 5, { status: 'declined' });
  });

  it('a repeated participant-signed is a no-op', () => {
    whenNoOp(completed(buildEvent('participant-signed')), buildEvent('participant-signed'));
  });

  it.each(['participant-viewed', 'participant-downloaded'] as const)('%s applies', (type) => {
    const state = whenApplied(completed(buildEvent('participant-signed')), buildEvent(type));
    expect(participant(state)?.status).toBe('signed');
    expect(request(state)?.status).toBe('completed');
  });
});

describe('participant events on a declined request', () => {
  const declined = (...before: SignEvent[]) =>
    given(buildEvent('sign-request-sent'), ...before, buildEvent('sign-request-declined'));

  it('a late participant-declined applies', () => {
    const state = whenApplied(
      declined(buildEvent('participant-viewed')),
      buildEvent('participant-declined'),
    );
    expect(participant(state)?.status).toBe('declined');
    expect(request(state)?.status).toBe('declined');
  });

  it.each(['participant-signed', 'participant-sent'] as const)(
    '%s conflicts (invalid-transition on the request)',
    (type) => {
      const conflict = whenConflict(declined(), buildEvent(type));
      expect(conflict).toMatchObject({
        kind: 'invalid-transition',
        entity: 'sign-request',
        id: 1000,
        currentStatus: 'declined',
        eventType: type,
      });
    },
  );

  it.each([
    ['participant-viewed', 'viewed', 1, 0],
    ['participant-downloaded', 'sent', 0, 1],
  ] as const)('%s applies (participant %s)', (type, status, viewCount, downloadCount) => {
    const state = whenApplied(declined(), buildEvent(type));
    expect(request(state)?.status).toBe('declined');
    expect(participant(state)).toMatchObject({ status, viewCount, downloadCount });
  });
});

describe('participant lifecycle: sent < viewed < signed | declined', () => {
  it.each([
    [[], 'participant-viewed', 'viewed'],
    [[], 'participant-signed', 'signed'],
    [[], 'participant-declined', 'declined'],
    [['participant-sent'], 'participant-viewed', 'viewed'],
    [['participant-sent'], 'participant-signed', 'signed'],
    [['participant-sent'], 'participant-declined', 'declined'],
    [['participant-viewed'], 'participant-signed', 'signed'],
    [['participant-viewed'], 'participant-declined', 'declined'],
    [['participant-sent'], 'participant-downloaded', 'sent'],
    [['participant-viewed'], 'participant-downloaded', 'viewed'],
    [['participant-viewed'], 'participant-viewed', 'viewed'],
  ] as const)('after %j, %s → %s', (before, type, status) => {
    const state = whenApplied(givenParticipant(...before), buildEvent(type));
    expect(participant(state)?.status).toBe(status);
    expect(request(state)?.status).toBe('sent');
  });

  it('participant-sent on a viewed participant keeps viewed (a no-op)', () => {
    const state = givenParticipant('participant-viewed');
    // whenNoOp checks that reduce returns `state` itself (still viewed) and fold agrees.
    whenNoOp(state, buildEvent('participant-sent'));
  });

  it('participant-sent on a viewed participant with a new name keeps viewed', () => {
    const state = whenApplied(
      givenParticipant('participant-viewed'),
      buildEvent('participant-sent', { participantName: 'Ada L.' }),
    );
    expect(participant(state)).toMatchObject({ status: 'viewed', name: 'Ada L.' });
  });

  it.each([
    ['participant-signed', 'participant-declined', 'signed'],
    ['participant-declined', 'participant-signed', 'declined'],
    ['participant-signed', 'participant-sent', 'signed'],
    ['participant-declined', 'participant-sent', 'declined'],
  ] as const)('after %s, %s conflicts on the participant', (first, type, current) => {
    const conflict = whenConflict(givenParticipant(first), buildEvent(type));
    expect(conflict).toMatchObject({
      kind: 'invalid-transition',
      entity: 'participant',
      id: 5,
      signRequestId: 1000,
      currentStatus: current,
      eventType: type,
    });
    expect(conflict.message).toContain('participant 5 of sign request 1000');
  });

  it.each(['participant-sent', 'participant-signed', 'participant-declined'] as const)(
    'a repeated identical %s is a no-op returning the same state object',
    (type) => {
      whenNoOp(givenParticipant(type), buildEvent(type));
    },
  );
});

describe('views and downloads are counted on every delivery', () => {
  it.each(['participant-signed', 'participant-declined'] as const)(
    'after %s, views and downloads are counted without moving the status',
    (final) => {
      let state = givenParticipant('participant-viewed', final);
      state = whenApplied(state, buildEvent('participant-viewed'));
      state = whenApplied(state, buildEvent('participant-downloaded'));
      state = whenApplied(state, buildEvent('participant-downloaded'));
      expect(participant(state)).toMatchObject({
        status: final === 'participant-signed' ? 'signed' : 'declined',
        viewCount: 2,
        downloadCount: 2,
      });
    },
  );

  it('a repeated identical view is never a no-op', () => {
    const state = givenParticipant('participant-viewed');
    const result = reduce(state, buildEvent('participant-viewed'));
    const next = result._unsafeUnwrap();
    expect(next).not.toBe(state);
    expect(participant(next)?.viewCount).toBe(2);
    expect(participant(state)?.viewCount).toBe(1);
    expect(
      fold(state, [buildEvent('participant-viewed'), buildEvent('participant-viewed')]).state,
    ).toSatisfy((s: ProjectionState) => participant(s)?.viewCount === 3);
  });

  it('a repeated identical download is never a no-op', () => {
    // Written with signfold/testing, the kit users get.
    const download = events.participantDownloaded();
    givenEvents(events.signRequestSent(), download)
      .when(download)
      .thenApplied()
      .thenParticipant(1000, 5, { status: 'sent', downloadCount: 2 });
  });
});

describe('participant identity', () => {
  it('a roleId change conflicts (reference-mismatch on the participant)', () => {
    const state = givenParticipant('participant-viewed');
    for (const type of PARTICIPANT_EVENTS) {
      const conflict = whenConflict(state, buildEvent(type, { roleId: 8 }));
      expect(conflict).toMatchObject({
        kind: 'reference-mismatch',
        reference: 'roleId',
        expected: 7,
        received: 8,
        entity: 'participant',
        id: 5,
        signRequestId: 1000,
        currentStatus: 'viewed',
        eventType: type,
      });
    }
  });

  it('names and role name change, latest wins', () => {
    const state = givenParticipant('participant-sent');
    const next = whenApplied(
      state,
      buildEvent('participant-sent', { participantName: 'Ada King', roleName: 'Approver' }),
    );
    expect(participant(next)).toMatchObject({
      name: 'Ada King',
      roleName: 'Approver',
      roleId: 7,
      status: 'sent',
    });
  });

  it('participants are keyed by request and participant id', () => {
    const state = given(
      buildEvent('participant-signed', { signRequestId: 1000, participantId: 5 }),
      buildEvent('participant-declined', { signRequestId: 1001, participantId: 5 }),
      buildEvent('participant-viewed', { signRequestId: 1000, participantId: 6 }),
    );
    expect(participant(state)?.status).toBe('signed');
    expect(getParticipant(state, signRequestId(1001), P)?.status).toBe('declined');
    expect(participant(state, 6)?.status).toBe('viewed');
    expect([...listParticipants(state, R)].map((p) => p.id)).toEqual([5, 6]);
    expect([...listParticipants(state)].map((p) => [p.signRequestId, p.id])).toEqual([
      [1000, 5],
      [1000, 6],
      [1001, 5],
    ]);
    expect([...listParticipants(state, signRequestId(9))]).toEqual([]);
    expect(getParticipant(state, signRequestId(1001), participantId(6))).toBeUndefined();
  });
});
