import { describe, expect, it } from 'vitest';
import { signRequestId } from '../../src/core/ids.js';
import { observationRecord } from '../../src/core/observations/observation-record.js';
import type { Change } from '../../src/core/reactors/index.js';
import { defineUpcaster } from '../../src/core/upcasters/index.js';
import {
  createProjector,
  decodeSignRequest,
  restoreProjector,
  type SignRequest,
  takeSnapshot,
} from '../../src/index.js';
import { createMemoryEventLog } from '../../src/store/index.js';
import { events } from '../../src/testing/index.js';

const FETCHED = new Date('2026-11-27T12:00:00.000Z');
const id = signRequestId(1000);

const representation = (status: string, participant: Record<string, unknown>): SignRequest =>
  decodeSignRequest({
    id: 1000,
    name: 'NDA for Ada',
    status,
    formType: 'Form',
    savedTime: '2024-01-02 03:04:05',
    participants: [{ id: 5, name: 'Ada', ...participant }],
  })._unsafeUnwrap();

/** A log where request 1000 was sent to participant 5, and its signature and completion were lost. */
const logMissingTheEnd = async () => {
  const log = createMemoryEventLog();
  await log.append(events.signRequestSent(), { receivedAt: new Date('2026-11-20T10:00:00Z') });
  await log.append(events.participantSent(), { receivedAt: new Date('2026-11-20T10:00:01Z') });
  return log;
};

describe('observation records in the projector', () => {
  it('repairs a request whose completion was lost, records the repair and hands reactors the events it stands for', async () => {
    const log = await logMissingTheEnd();
    const completed = representation('completed', { status: 'Signed' });
    await log.append(observationRecord(completed, { fetchedAt: FETCHED }));
    const changes: Change[] = [];
    const projector = createProjector({ onApplied: (change) => changes.push(change) });
    const stats = (await projector.replay(log))._unsafeUnwrap();

    expect(stats).toMatchObject({ applied: 3, conflicts: 0, invalid: 0 });
    expect(projector.getSignRequest(id)?.status).toBe('completed');
    expect(projector.getParticipant(id, 5 as never)?.status).toBe('signed');
    const repair = projector.signRequestHistory(id).at(-1);
    expect(repair).toMatchObject({ position: 3, type: 'observation', outcome: 'applied' });
    expect(repair?.differences).toEqual([
      'status: projection says sent, service says completed',
      'participant 5: projection says sent, service says signed',
    ]);

    const repairs = changes.filter((change) => change.observation !== undefined);
    expect(repairs.map((change) => change.event.type)).toEqual([
      'participant-signed',
      'sign-request-completed',
    ]);
    expect(
      repairs.map((change) => [
        change.position,
        change.observation?.index,
        change.observation?.count,
      ]),
    ).toEqual([
      [3, 0, 2],
      [3, 1, 2],
    ]);
    const [signed, done] = repairs;
    expect(signed?.before.participant?.status).toBe('sent');
    expect(signed?.after.participant?.status).toBe('signed');
    expect(done?.before.signRequest?.status).toBe('sent');
    expect(done?.after.signRequest?.status).toBe('completed');
    // The rebuilt event carries what the delivery would have: the members the projection knows.
    expect(done?.event).toEqual(events.signRequestCompleted());
    expect(done?.state.signRequests.get(id)?.status).toBe('completed');
    expect(done?.observation?.differences).toEqual(repair?.differences);
  });

  it('is a no-op when the projection already agrees, and a second observation repairs nothing', async () => {
    const log = await logMissingTheEnd();
    const completed = representation('completed', { status: 'Signed' });
    await log.append(observationRecord(completed, { fetchedAt: FETCHED }));
    await log.append(observationRecord(completed, { fetchedAt: FETCHED }));
    const changes: Change[] = [];
    const projector = createProjector({ onApplied: (change) => changes.push(change) });
    const stats = (await projector.replay(log))._unsafeUnwrap();
    expect(stats).toMatchObject({ applied: 3, noOps: 1 });
    expect(projector.signRequestHistory(id).at(-1)).toMatchObject({
      type: 'observation',
      outcome: 'no-op',
      differences: [],
    });
    expect(changes.filter((change) => change.observation !== undefined)).toHaveLength(2);
  });

  it('refuses a backwards status as a conflict that changes nothing', async () => {
    const log = await logMissingTheEnd();
    await log.append(events.signRequestCompleted());
    await log.append(
      observationRecord(representation('sent', { status: 'Sent' }), { fetchedAt: FETCHED }),
    );
    const projector = createProjector();
    const stats = (await projector.replay(log))._unsafeUnwrap();
    expect(stats).toMatchObject({ conflicts: 1 });
    expect(projector.getSignRequest(id)?.status).toBe('completed');
    expect(projector.quarantine()[0]?.reason.message).toMatch(
      /^invalid-transition: .*completed → sent/,
    );
    expect(projector.signRequestHistory(id).at(-1)).toMatchObject({
      type: 'observation',
      outcome: 'invalid-transition',
    });
  });

  it('refuses another company’s representation when the record names the company', async () => {
    const log = await logMissingTheEnd();
    const record = observationRecord(representation('completed', {}), {
      fetchedAt: FETCHED,
      companyId: 2 as never,
    });
    await log.append(record);
    const projector = createProjector();
    await projector.replay(log);
    expect(projector.getSignRequest(id)?.status).toBe('sent');
    expect(projector.quarantine()[0]?.reason.message).toMatch(/^company-mismatch/);
  });

  it('quarantines a malformed observation with the path of its first problem', async () => {
    const log = createMemoryEventLog();
    const record = observationRecord(representation('completed', {}), { fetchedAt: FETCHED });
    await log.append({
      ...record,
      signRequest: { ...(record.signRequest as object), status: 'lost' },
    });
    await log.append({ ...record, signRequestId: 999 });
    await log.append({ ...record, fetchedAt: 'yesterday' });
    await log.append({ ...record, extra: 1 });
    const projector = createProjector();
    const stats = (await projector.replay(log))._unsafeUnwrap();
    expect(stats).toMatchObject({ invalid: 4, applied: 0 });
    expect(projector.quarantine().map((entry) => entry.reason.message)).toEqual([
      expect.stringMatching(/^signRequest\.status: /),
      'signRequestId: signRequestId 999 does not match signRequest.id 1000',
      expect.stringMatching(/^fetchedAt: expected an ISO 8601 date-time/),
      'extra: unknown member "extra" in an observation record',
    ]);
    expect(projector.getSignRequest(id)).toBeUndefined();
  });

  it('never reads an event as an observation: a value with a type is decoded as an event', async () => {
    const log = createMemoryEventLog();
    const record = observationRecord(representation('completed', {}), { fetchedAt: FETCHED });
    await log.append({ ...record, type: 'sign-request-completed' });
    const projector = createProjector();
    await projector.replay(log);
    expect(projector.quarantine()[0]?.reason.kind).toBe('invalid-event');
    expect(projector.quarantine()[0]?.reason.message).not.toMatch(/observation/);
    expect(projector.getSignRequest(id)).toBeUndefined();
  });

  it('keeps a repair through a snapshot: the restored projector has the state and the audit entry', async () => {
    const log = await logMissingTheEnd();
    await log.append(
      observationRecord(representation('completed', { status: 'Signed' }), { fetchedAt: FETCHED }),
    );
    const projector = createProjector();
    await projector.replay(log);
    const snapshot = JSON.parse(JSON.stringify(takeSnapshot(projector)));
    const restored = restoreProjector(snapshot)._unsafeUnwrap();
    expect(restored.getSignRequest(id)?.status).toBe('completed');
    expect(restored.signRequestHistory(id)).toEqual(projector.signRequestHistory(id));
  });

  it('tells reactors nothing for a request known only from the API: no event can be rebuilt without its sender', async () => {
    const log = createMemoryEventLog();
    await log.append(
      observationRecord(representation('completed', { status: 'Signed' }), { fetchedAt: FETCHED }),
    );
    const changes: Change[] = [];
    const projector = createProjector({ onApplied: (change) => changes.push(change) });
    await projector.replay(log);
    expect(projector.getSignRequest(id)?.status).toBe('completed');
    expect(changes).toEqual([]);
  });

  it('passes no observation record to upcasters: one that matches everything leaves repairs as they are', async () => {
    const log = await logMissingTheEnd();
    await log.append(
      observationRecord(representation('completed', { status: 'Signed' }), { fetchedAt: FETCHED }),
    );
    const seen: unknown[] = [];
    const identity = defineUpcaster({
      name: 'identity',
      from: () => true,
      to: (wire) => {
        seen.push(wire);
        return wire;
      },
    });
    const projector = createProjector({ upcasters: [identity] });
    const stats = (await projector.replay(log))._unsafeUnwrap();
    expect(stats).toMatchObject({ applied: 3, invalid: 0 });
    expect(seen).toHaveLength(2);
    expect(projector.getSignRequest(id)?.status).toBe('completed');
  });
});
