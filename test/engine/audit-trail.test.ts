import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { encodeEvent } from '../../src/core/events/encode-event.js';
import { participantId, signRequestId, templateId } from '../../src/core/ids.js';
import { createProjector } from '../../src/engine/projector.js';
import { memoryLogOf, receivedAtOf, type StreamItem } from '../support/engine-arbitraries.js';

const REQUEST = signRequestId(1000);
const ADA = participantId(5);
const BOB = participantId(6);
const NDA = templateId(100);

const bob = { participantId: 6, participantName: 'Bob', roleId: 8, roleName: 'Witness' };
const value = (event: unknown): StreamItem => ({ kind: 'value', value: event });

/** A history with applied, no-op and conflicting events for one request and one template. */
const HISTORY: StreamItem[] = [
  value(encodeEvent(buildEvent('template-activated'))), // 1
  value(encodeEvent(buildEvent('sign-request-sent'))), // 2
  value(encodeEvent(buildEvent('participant-sent'))), // 3 Ada
  value(encodeEvent(buildEvent('participant-sent', bob))), // 4 Bob
  value(encodeEvent(buildEvent('participant-sent'))), // 5 Ada again: no-op
  value(encodeEvent(buildEvent('participant-viewed', { companyId: 2 }))), // 6 another company
  value(encodeEvent(buildEvent('participant-signed'))), // 7 Ada
  value(encodeEvent(buildEvent('sign-request-completed'))), // 8
  value(encodeEvent(buildEvent('participant-declined', bob))), // 9 too late
  value(encodeEvent(buildEvent('sign-request-sent'))), // 10 backwards
  value(encodeEvent(buildEvent('template-inactivated'))), // 11
  value(encodeEvent(buildEvent('template-activated', { companyId: 2 }))), // 12 another company
  value(encodeEvent(buildEvent('sign-request-sent', { signRequestId: 1001 }))), // 13 another request
  value({ type: 'participant-opened' }), // 14 undecodable: no record to attach it to
];

const at = (position: number) => receivedAtOf(position).toISOString();

describe('audit trails', () => {
  it('lists, per sign request, every event that touched it with its outcome, in log order', async () => {
    const projector = createProjector();
    await projector.replay(await memoryLogOf(HISTORY));
    expect(projector.signRequestHistory(REQUEST)).toEqual([
      {
        position: 2,
        type: 'sign-request-sent',
        participantId: undefined,
        receivedAt: at(2),
        outcome: 'applied',
      },
      {
        position: 3,
        type: 'participant-sent',
        participantId: 5,
        receivedAt: at(3),
        outcome: 'applied',
      },
      {
        position: 4,
        type: 'participant-sent',
        participantId: 6,
        receivedAt: at(4),
        outcome: 'applied',
      },
      {
        position: 5,
        type: 'participant-sent',
        participantId: 5,
        receivedAt: at(5),
        outcome: 'no-op',
      },
      {
        position: 6,
        type: 'participant-viewed',
        participantId: 5,
        receivedAt: at(6),
        outcome: 'company-mismatch',
      },
      {
        position: 7,
        type: 'participant-signed',
        participantId: 5,
        receivedAt: at(7),
        outcome: 'applied',
      },
      {
        position: 8,
        type: 'sign-request-completed',
        participantId: undefined,
        receivedAt: at(8),
        outcome: 'applied',
      },
      {
        position: 9,
        type: 'participant-declined',
        participantId: 6,
        receivedAt: at(9),
        outcome: 'invalid-transition',
      },
      {
        position: 10,
        type: 'sign-request-sent',
        participantId: undefined,
        receivedAt: at(10),
        outcome: 'invalid-transition',
      },
    ]);
    expect(projector.signRequestHistory(signRequestId(1001)).map((e) => e.position)).toEqual([13]);
    expect(projector.signRequestHistory(signRequestId(4242))).toEqual([]);
  });

  it('filters per participant', async () => {
    const projector = createProjector();
    await projector.replay(await memoryLogOf(HISTORY));
    const positions = (id: typeof ADA) =>
      projector.participantHistory(REQUEST, id).map((e) => [e.position, e.outcome]);
    expect(positions(ADA)).toEqual([
      [3, 'applied'],
      [5, 'no-op'],
      [6, 'company-mismatch'],
      [7, 'applied'],
    ]);
    expect(positions(BOB)).toEqual([
      [4, 'applied'],
      [9, 'invalid-transition'],
    ]);
    expect(projector.participantHistory(signRequestId(1001), ADA)).toEqual([]);
  });

  it('keeps a trail per template, conflicts included', async () => {
    const projector = createProjector();
    await projector.replay(await memoryLogOf(HISTORY));
    expect(projector.templateHistory(NDA).map((e) => [e.position, e.type, e.outcome])).toEqual([
      [1, 'template-activated', 'applied'],
      [11, 'template-inactivated', 'applied'],
      [12, 'template-activated', 'company-mismatch'],
    ]);
  });

  it('records a live event with its receivedAt, or none', () => {
    const projector = createProjector();
    projector.apply({ position: 1, event: buildEvent('participant-sent'), receivedAt: 'T1' });
    projector.apply({ position: 2, event: buildEvent('participant-viewed') });
    expect(projector.signRequestHistory(REQUEST).map((e) => e.receivedAt)).toEqual([
      'T1',
      undefined,
    ]);
  });

  it('hands out copies of frozen entries', async () => {
    const projector = createProjector();
    await projector.replay(await memoryLogOf(HISTORY));
    const trail = projector.signRequestHistory(REQUEST) as unknown[];
    trail.length = 0;
    expect(projector.signRequestHistory(REQUEST)).toHaveLength(9);
    expect(Object.isFrozen(projector.signRequestHistory(REQUEST)[0])).toBe(true);
  });

  it('keeps nothing with audit: false, and the projections are the same', async () => {
    const log = await memoryLogOf(HISTORY);
    const without = createProjector({ audit: false });
    const withAudit = createProjector();
    await without.replay(log);
    await withAudit.replay(log);
    expect(without.auditTrail()).toBeUndefined();
    expect(without.signRequestHistory(REQUEST)).toEqual([]);
    expect(without.participantHistory(REQUEST, ADA)).toEqual([]);
    expect(without.templateHistory(NDA)).toEqual([]);
    expect(without.state()).toEqual(withAudit.state());
    expect(without.quarantine()).toEqual(withAudit.quarantine());
  });
});
