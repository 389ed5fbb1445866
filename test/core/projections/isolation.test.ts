import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../../src/core/builders/plain-builders.js';
import { EVENT_TYPES } from '../../../src/core/events/event-members.js';
import {
  type CompanyId,
  companyId,
  type ParticipantId,
  participantId,
  roleId,
  type SignRequestId,
  signRequestId,
  templateId,
} from '../../../src/core/ids.js';
import {
  getParticipant,
  getSignRequest,
  getTemplate,
  type ProjectionState,
} from '../../../src/core/projections/projection-state.js';
import type { ParticipantView, SignRequestView } from '../../../src/core/projections/records.js';
import { fold, reduce } from '../../../src/core/projections/reduce.js';
import { events, given as givenEvents } from '../../../src/testing/index.js';
import { given, whenConflict } from '../../support/specification.js';

const R = signRequestId(1000);

/** One record of every kind, all of company 1, participant 5 viewed. */
const world = () =>
  given(
    buildEvent('template-activated', { companyId: 1 }),
    buildEvent('sign-request-sent', { companyId: 1 }),
    buildEvent('participant-viewed', { companyId: 1 }),
  );

describe('isolation: one company never changes another company’s records', () => {
  it.each(EVENT_TYPES)('%s from company 2 on company 1 records conflicts', (type) => {
    const state = world();
    const conflict = whenConflict(state, buildEvent(type, { companyId: 2 }));
    expect(conflict).toMatchObject({
      kind: 'company-mismatch',
      recordCompanyId: 1,
      eventCompanyId: 2,
      eventType: type,
      entity: type.startsWith('template-') ? 'template' : 'sign-request',
    });
    expect(conflict.message).toContain('company 1');
    expect(conflict.message).toContain('2');
  });

  it('company mismatch wins over every other check', () => {
    const state = given(
      buildEvent('template-deleted', { companyId: 1 }),
      buildEvent('sign-request-sent', { companyId: 1, templateId: 101 }),
      buildEvent('participant-signed', { companyId: 1, templateId: 101 }),
      buildEvent('sign-request-deleted', { companyId: 1 }),
    );
    // Other company + other template + other role + deleted record: company first.
    for (const type of [
      'sign-request-sent',
      'participant-signed',
      'participant-declined',
    ] as const) {
      const conflict = whenConflict(
        state,
        buildEvent(type, { companyId: 2, templateId: 102, roleId: 9 }),
      );
      expect(conflict).toMatchObject({ kind: 'company-mismatch', entity: 'sign-request' });
    }
    const onTemplate = whenConflict(state, buildEvent('template-activated', { companyId: 2 }));
    expect(onTemplate).toMatchObject({ kind: 'company-mismatch', entity: 'template' });
  });

  it("another company's deleted template does not block a request naming the same id", () => {
    // Written with signfold/testing, the kit users get.
    const deletedByCompany1 = givenEvents(
      events.templateDeleted({ companyId: 1, templateId: 100 }),
    );
    deletedByCompany1
      .when(events.signRequestSent({ companyId: 2, templateId: 100 }))
      .thenApplied()
      .thenSignRequest(1000, { companyId: 2, status: 'sent', templateId: 100 });
    deletedByCompany1
      .when(events.signRequestSent({ companyId: 1, templateId: 100 }))
      .thenConflict({ kind: 'deleted', entity: 'template', id: 100 })
      .thenNoSignRequest(1000);
  });

  it('a participant record of another company is protected too', () => {
    // Not reachable through events alone (a participant takes its request's company),
    // but a state built elsewhere must still be guarded at the participant level.
    const requestRecord: SignRequestView = {
      id: R,
      companyId: companyId(1),
      name: 'NDA for Ada',
      status: 'sent',
      deleted: false,
      sentAt: null,
      completedAt: null,
      declinedAt: null,
      deletedAt: null,
      outcomeFrom: null,
      lastEventAt: null,
    };
    const participantRecord: ParticipantView = {
      signRequestId: R,
      id: participantId(5),
      companyId: companyId(2),
      name: 'Ada',
      status: 'sent',
      viewCount: 0,
      downloadCount: 0,
      roleId: roleId(7),
      sentAt: null,
      viewedAt: null,
      signedAt: null,
      declinedAt: null,
      outcomeFrom: null,
      lastEventAt: null,
    };
    const state: ProjectionState = {
      templates: new Map(),
      signRequests: new Map<SignRequestId, SignRequestView>([[R, requestRecord]]),
      participants: new Map([
        [R, new Map<ParticipantId, ParticipantView>([[participantId(5), participantRecord]])],
      ]),
    };
    const conflict = whenConflict(state, buildEvent('participant-viewed', { companyId: 1 }));
    expect(conflict).toMatchObject({
      kind: 'company-mismatch',
      entity: 'participant',
      id: 5,
      signRequestId: 1000,
      currentStatus: 'sent',
      recordCompanyId: 2,
      eventCompanyId: 1,
    });
  });

  it('companies with different ids live side by side', () => {
    const state = given(
      buildEvent('template-activated', { companyId: 1, templateId: 100 }),
      buildEvent('template-activated', { companyId: 2, templateId: 101 }),
      buildEvent('sign-request-sent', { companyId: 1, signRequestId: 1000, templateId: 100 }),
      buildEvent('sign-request-sent', { companyId: 2, signRequestId: 1001, templateId: 101 }),
      buildEvent('participant-signed', { companyId: 2, signRequestId: 1001, templateId: 101 }),
    );
    expect(getTemplate(state, templateId(101))?.companyId).toBe(2);
    expect(getSignRequest(state, signRequestId(1001))?.companyId).toBe(2);
    expect(getParticipant(state, signRequestId(1001), participantId(5))?.companyId).toBe(
      2 as CompanyId,
    );
    expect(getSignRequest(state, R)?.companyId).toBe(1);
  });

  it('a conflicting event in a fold does not stop later events', () => {
    const { state, conflicts } = fold(world(), [
      buildEvent('sign-request-completed', { companyId: 2 }),
      buildEvent('sign-request-completed', { companyId: 1 }),
    ]);
    expect(conflicts.map((c) => [c.index, c.kind])).toEqual([[0, 'company-mismatch']]);
    expect(getSignRequest(state, R)?.status).toBe('completed');
  });
});

describe('references never change', () => {
  it('a sign request whose templateId changes conflicts', () => {
    const conflict = whenConflict(
      world(),
      buildEvent('sign-request-completed', { templateId: 101 }),
    );
    expect(conflict).toMatchObject({
      kind: 'reference-mismatch',
      reference: 'templateId',
      expected: 100,
      received: 101,
      entity: 'sign-request',
    });
    expect(conflict.message).toContain('templateId 100');
  });

  it('a participant whose roleId changes conflicts', () => {
    const conflict = whenConflict(world(), buildEvent('participant-signed', { roleId: 8 }));
    expect(conflict).toMatchObject({
      kind: 'reference-mismatch',
      reference: 'roleId',
      expected: 7,
      received: 8,
      entity: 'participant',
      id: 5,
    });
  });

  it('the same role id on another participant or request is fine', () => {
    const state = world();
    const other = reduce(state, buildEvent('participant-viewed', { participantId: 6, roleId: 8 }));
    expect(other.isOk()).toBe(true);
    const elsewhere = reduce(
      state,
      buildEvent('participant-viewed', { signRequestId: 1001, roleId: 8 }),
    );
    expect(elsewhere.isOk()).toBe(true);
  });

  it('names may change (latest wins) on every record', () => {
    const { state, conflicts } = fold(world(), [
      buildEvent('template-activated', { templateName: 'T2', ownerName: 'O2' }),
      buildEvent('participant-viewed', {
        signRequestName: 'R2',
        participantName: 'P2',
        roleName: 'Role2',
        senderName: 'S2',
      }),
    ]);
    expect(conflicts).toEqual([]);
    expect(getTemplate(state, templateId(100))).toMatchObject({ name: 'T2', ownerName: 'O2' });
    expect(getSignRequest(state, R)).toMatchObject({ name: 'R2', senderName: 'S2' });
    expect(getParticipant(state, R, participantId(5))).toMatchObject({
      name: 'P2',
      roleName: 'Role2',
      viewCount: 2,
    });
  });
});
