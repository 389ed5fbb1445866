import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { encodeEvent } from '../../src/core/events/encode-event.js';
import { companyId, participantId, signRequestId } from '../../src/core/ids.js';
import { decodeSignRequest } from '../../src/core/sign-request/decode-sign-request.js';
import type { SignRequest } from '../../src/core/sign-request/sign-request.js';
import { createProjector } from '../../src/engine/projector.js';
import { restoreProjector, takeSnapshot } from '../../src/engine/snapshot.js';
import { memoryLogOf, type StreamItem } from '../support/engine-arbitraries.js';

const REQUEST = signRequestId(1000);
const ADA = participantId(5);

const representation = (status: string, adaStatus: string): SignRequest =>
  decodeSignRequest({
    id: 1000,
    name: 'NDA for Ada',
    status,
    formType: 'Document',
    savedTime: '2025-10-12 08:40:44',
    participants: [
      { id: 5, name: 'Ada Lovelace', status: adaStatus, role: { id: 7, name: 'Signer' } },
    ],
  })._unsafeUnwrap();

const later: StreamItem[] = [
  { kind: 'value', value: encodeEvent(buildEvent('participant-signed')) },
  { kind: 'value', value: encodeEvent(buildEvent('sign-request-completed')) },
];

describe('Projector.loadSignRequest', () => {
  it('loads a representation, then events continue from it; the checkpoint is kept', async () => {
    const projector = createProjector();
    const loaded = projector.loadSignRequest(representation('Sent', 'Viewed'), {
      companyId: companyId(1),
    });
    expect(loaded.isOk()).toBe(true);
    expect(projector.checkpoint).toBe(0);
    expect(projector.getSignRequest(REQUEST)).toMatchObject({
      status: 'sent',
      companyId: 1,
      formType: 'Document',
      savedTime: '2025-10-12 08:40:44',
    });
    expect(projector.getParticipant(REQUEST, ADA)?.status).toBe('viewed');

    const stats = await projector.replay(await memoryLogOf(later));
    expect(stats._unsafeUnwrap()).toMatchObject({ applied: 2, conflicts: 0 });
    expect(projector.checkpoint).toBe(2);
    expect(projector.getSignRequest(REQUEST)).toMatchObject({
      status: 'completed',
      formType: 'Document',
      templateId: 100,
    });
    expect(projector.getParticipant(REQUEST, ADA)?.status).toBe('signed');
  });

  it('loading mid-stream leaves the checkpoint where it was', () => {
    const projector = createProjector();
    projector.apply({ position: 1, event: buildEvent('participant-sent') });
    projector.apply({ position: 2, event: buildEvent('participant-viewed') });
    expect(projector.loadSignRequest(representation('Sent', 'Signed')).isOk()).toBe(true);
    expect(projector.checkpoint).toBe(2);
    expect(projector.getParticipant(REQUEST, ADA)).toMatchObject({
      status: 'signed',
      viewCount: 1,
    });
    expect(
      projector.apply({ position: 2, event: buildEvent('participant-viewed') })._unsafeUnwrap(),
    ).toBe('already-applied');
    expect(
      projector.apply({ position: 3, event: buildEvent('sign-request-completed') }).isOk(),
    ).toBe(true);
    expect(projector.getSignRequest(REQUEST)?.status).toBe('completed');
  });

  it('without an origin the first event sets the company', () => {
    const projector = createProjector();
    projector.loadSignRequest(representation('Sent', 'Sent'));
    expect(projector.getSignRequest(REQUEST)?.companyId).toBeNull();
    projector.apply({ position: 1, event: buildEvent('participant-viewed', { companyId: 2 }) });
    expect(projector.getSignRequest(REQUEST)?.companyId).toBe(2);
    expect(projector.getParticipant(REQUEST, ADA)).toMatchObject({
      companyId: 2,
      status: 'viewed',
    });
  });

  it('refuses a representation that moves a status back, changing nothing', () => {
    const projector = createProjector();
    projector.apply({ position: 1, event: buildEvent('participant-signed') });
    projector.apply({ position: 2, event: buildEvent('sign-request-completed') });
    const before = projector.state();
    const refused = projector.loadSignRequest(representation('Sent', 'Sent'));
    expect(refused._unsafeUnwrapErr()).toMatchObject({
      kind: 'invalid-transition',
      entity: 'sign-request',
      eventType: 'load-sign-request',
    });
    expect(projector.state()).toEqual(before);
    expect(projector.checkpoint).toBe(2);
    const otherCompany = projector.loadSignRequest(representation('Completed', 'Signed'), {
      companyId: companyId(2),
    });
    expect(otherCompany._unsafeUnwrapErr().kind).toBe('company-mismatch');
  });

  it('a snapshot carries what was loaded', () => {
    const projector = createProjector();
    projector.loadSignRequest(representation('Sent', 'Viewed'), { companyId: companyId(1) });
    const restored = restoreProjector(JSON.parse(JSON.stringify(takeSnapshot(projector))));
    expect(restored._unsafeUnwrap().state()).toEqual(projector.state());
  });
});
