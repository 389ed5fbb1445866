import { describe, expect, it } from 'vitest';
import { events } from '../../src/core/builders/plain-builders.js';
import type { Change } from '../../src/core/reactors/reactor-types.js';
import { createProjector } from '../../src/engine/projector.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';

/** The change with its views read while `onApplied` runs (they cannot be made later). */
const keep = (change: Change): Change => ({
  event: change.event,
  position: change.position,
  receivedAt: change.receivedAt,
  deliveryId: change.deliveryId,
  before: change.before,
  after: change.after,
  state: change.state,
});

describe('ProjectorOptions.onApplied', () => {
  it('is called for applied events only, with the touched views before and after', async () => {
    const log = createMemoryEventLog();
    await log.append(events.signRequestSent(), { deliveryId: 'd-1' });
    await log.append(events.participantSent());
    await log.append(events.participantSent()); // a no-op: already sent
    await log.append({ type: 'participant-signed' }); // invalid
    await log.append(events.signRequestDeclined());
    await log.append(events.signRequestCompleted()); // a conflict after the decline
    await log.append(events.templateActivated());
    const changes: Change[] = [];
    const projector = createProjector({ onApplied: (change) => changes.push(keep(change)) });
    expect((await projector.replay(log)).isOk()).toBe(true);
    expect(changes.map((c) => [c.position, c.event.type])).toEqual([
      [1, 'sign-request-sent'],
      [2, 'participant-sent'],
      [5, 'sign-request-declined'],
      [7, 'template-activated'],
    ]);
    const [sent, participant, declined, template] = changes;
    expect(sent?.before).toEqual({});
    expect(Object.keys(sent?.after ?? {})).toEqual(['signRequest']);
    expect(sent?.deliveryId).toBe('d-1');
    expect(typeof sent?.receivedAt).toBe('string');
    expect(participant?.before.participant).toBeUndefined();
    expect(participant?.after.participant?.status).toBeDefined();
    expect(participant?.after.signRequest).toBeDefined();
    expect(declined?.before.signRequest?.status).not.toBe(declined?.after.signRequest?.status);
    // A view handed out never changes under its holder, though later events write the record.
    // The participant's event was the request's last before the decline (lastEventAt).
    expect(declined?.before.signRequest).toEqual(participant?.after.signRequest);
    expect(sent?.after.signRequest?.lastEventAt).toBe(sent?.receivedAt);
    expect(sent?.after.signRequest?.sentAt).toBe(sent?.receivedAt);
    expect(template?.before).toEqual({});
    expect(template?.after.template?.status).toBe('active');
    // Re-applying an applied position is a duplicate: no second call.
    projector.apply({ position: 5, event: events.signRequestDeclined() });
    expect(changes).toHaveLength(4);
  });

  it('passes a live event deliveryId and receivedAt through', () => {
    const changes: Change[] = [];
    const projector = createProjector({ onApplied: (change) => changes.push(change) });
    projector.apply({
      position: 1,
      event: events.signRequestSent(),
      deliveryId: 'x',
      receivedAt: '2026-01-01T00:00:00.000Z',
    });
    projector.apply({ position: 2, event: events.signRequestSent() });
    expect(changes.map((c) => [c.deliveryId, c.receivedAt])).toEqual([
      ['x', '2026-01-01T00:00:00.000Z'],
    ]);
  });
});
