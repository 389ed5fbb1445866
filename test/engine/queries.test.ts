import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { companyId, participantId, signRequestId, templateId, userId } from '../../src/core/ids.js';
import { initialState } from '../../src/core/projections/projection-state.js';
import {
  countSignRequestsByStatus,
  findSignRequests,
  participantsAwaitingAction,
  templateStats,
} from '../../src/core/projections/queries.js';
import { fold } from '../../src/core/projections/reduce.js';

/**
 * 1000 sent (co 1, tpl 100, sender 20) with Ada sent, #6 viewed, #7 signed;
 * 1002 declined (co 2, tpl 200) with #9 viewed; 1001 completed (tpl 100, sender 21);
 * 1003 sent then deleted (tpl 100) with Ada sent; 1004 sent (co 2, tpl 200, sender 22)
 * with #8 viewed; 1005 sent (tpl 101); 1006 first seen deleted (draft, no template).
 */
const EVENTS = [
  buildEvent('sign-request-sent', { signRequestId: 1000 }),
  buildEvent('participant-sent', { signRequestId: 1000, participantId: 5 }),
  buildEvent('participant-viewed', { signRequestId: 1000, participantId: 6 }),
  buildEvent('participant-signed', { signRequestId: 1000, participantId: 7 }),
  buildEvent('sign-request-sent', { signRequestId: 1002, companyId: 2, templateId: 200 }),
  buildEvent('sign-request-declined', { signRequestId: 1002, companyId: 2 }),
  buildEvent('participant-viewed', { signRequestId: 1002, companyId: 2, participantId: 9 }),
  buildEvent('sign-request-completed', { signRequestId: 1001, senderId: 21 }),
  buildEvent('sign-request-sent', { signRequestId: 1003 }),
  buildEvent('participant-sent', { signRequestId: 1003, participantId: 5 }),
  buildEvent('sign-request-deleted', { signRequestId: 1003 }),
  buildEvent('sign-request-sent', {
    signRequestId: 1004,
    companyId: 2,
    templateId: 200,
    senderId: 22,
  }),
  buildEvent('participant-viewed', { signRequestId: 1004, companyId: 2, participantId: 8 }),
  buildEvent('sign-request-sent', { signRequestId: 1005, templateId: 101 }),
  buildEvent('sign-request-deleted', { signRequestId: 1006 }),
];

const setup = () => {
  const folded = fold(initialState(), EVENTS);
  expect(folded.conflicts).toEqual([]);
  return folded.state;
};

const ids = (records: readonly { readonly id: number }[]) => records.map((r) => r.id);

describe('findSignRequests', () => {
  it('without criteria lists every non-deleted request in first-seen order', () => {
    expect(ids(findSignRequests(setup()))).toEqual([1000, 1002, 1001, 1004, 1005]);
    expect(ids(findSignRequests(setup(), { includeDeleted: true }))).toEqual([
      1000, 1002, 1001, 1003, 1004, 1005, 1006,
    ]);
  });

  it('filters by status, company, template and sender, all criteria at once', () => {
    const state = setup();
    expect(ids(findSignRequests(state, { status: 'sent' }))).toEqual([1000, 1004, 1005]);
    expect(ids(findSignRequests(state, { status: 'sent', includeDeleted: true }))).toEqual([
      1000, 1003, 1004, 1005,
    ]);
    expect(ids(findSignRequests(state, { companyId: companyId(2) }))).toEqual([1002, 1004]);
    expect(ids(findSignRequests(state, { templateId: templateId(100) }))).toEqual([1000, 1001]);
    expect(ids(findSignRequests(state, { senderId: userId(21) }))).toEqual([1001]);
    expect(
      ids(
        findSignRequests(state, {
          companyId: companyId(1),
          status: 'sent',
          senderId: userId(20),
          templateId: templateId(101),
        }),
      ),
    ).toEqual([1005]);
    expect(ids(findSignRequests(state, { status: 'draft', includeDeleted: true }))).toEqual([1006]);
    expect(findSignRequests(state, { companyId: companyId(3) })).toEqual([]);
  });
});

describe('participantsAwaitingAction', () => {
  it('lists sent or viewed participants of sent, non-deleted requests', () => {
    const waiting = participantsAwaitingAction(setup());
    expect(waiting.map((p) => [p.signRequestId, p.id, p.status])).toEqual([
      [1000, 5, 'sent'],
      [1000, 6, 'viewed'],
      [1004, 8, 'viewed'],
    ]);
  });

  it('filters by company', () => {
    const state = setup();
    expect(participantsAwaitingAction(state, companyId(2)).map((p) => p.id)).toEqual([8]);
    expect(participantsAwaitingAction(state, companyId(1)).map((p) => p.id)).toEqual([5, 6]);
    expect(participantsAwaitingAction(state, companyId(3))).toEqual([]);
  });

  it('drops a participant once the request completes', () => {
    const state = fold(setup(), [
      buildEvent('participant-signed', { signRequestId: 1000, participantId: 5 }),
      buildEvent('sign-request-completed', { signRequestId: 1000 }),
    ]).state;
    expect(participantsAwaitingAction(state).map((p) => p.id)).toEqual([8]);
    expect(
      participantsAwaitingAction(state).some((p) => p.signRequestId === signRequestId(1000)),
    ).toBe(false);
    expect(state.participants.get(signRequestId(1000))?.get(participantId(6))?.status).toBe(
      'viewed',
    );
  });
});

describe('templateStats', () => {
  it('counts sent, completed and declined per template, deleted requests left out', () => {
    expect(templateStats(setup())).toEqual([
      { templateId: 100, companyId: 1, sent: 2, completed: 1, declined: 0, completionRate: 1 },
      { templateId: 200, companyId: 2, sent: 2, completed: 0, declined: 1, completionRate: 0 },
      {
        templateId: 101,
        companyId: 1,
        sent: 1,
        completed: 0,
        declined: 0,
        completionRate: undefined,
      },
    ]);
  });

  it('gives a fractional completion rate', () => {
    const state = fold(setup(), [
      buildEvent('sign-request-declined', { signRequestId: 1005 }),
      buildEvent('sign-request-completed', { signRequestId: 1007, templateId: 101 }),
      buildEvent('sign-request-completed', { signRequestId: 1008, templateId: 101 }),
    ]).state;
    const stats = templateStats(state).find((s) => s.templateId === templateId(101));
    expect(stats).toMatchObject({ sent: 3, completed: 2, declined: 1 });
    expect(stats?.completionRate).toBeCloseTo(2 / 3);
  });

  it('is empty before any request', () => {
    expect(templateStats(initialState())).toEqual([]);
  });
});

describe('countSignRequestsByStatus', () => {
  it('counts each status and deleted requests apart', () => {
    expect(countSignRequestsByStatus(setup())).toEqual({
      draft: 0,
      sent: 3,
      completed: 1,
      declined: 1,
      deleted: 2,
    });
    expect(countSignRequestsByStatus(initialState())).toEqual({
      draft: 0,
      sent: 0,
      completed: 0,
      declined: 0,
      deleted: 0,
    });
  });
});
