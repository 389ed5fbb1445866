import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { compareSignRequest } from '../../src/core/projections/compare-sign-request.js';
import { initialState } from '../../src/core/projections/projection-state.js';
import { fold } from '../../src/core/projections/reduce.js';
import { decodeSignRequest } from '../../src/core/sign-request/decode-sign-request.js';
import type { SignRequest } from '../../src/core/sign-request/sign-request.js';

/** Request 1000, sent, with Ada (#5) sent, #6 viewed, #7 signed; request 1003 deleted. */
const STATE = (() => {
  const folded = fold(initialState(), [
    buildEvent('sign-request-sent'),
    buildEvent('participant-sent', { participantId: 5 }),
    buildEvent('participant-viewed', { participantId: 6 }),
    buildEvent('participant-signed', { participantId: 7 }),
    buildEvent('sign-request-sent', { signRequestId: 1003 }),
    buildEvent('sign-request-deleted', { signRequestId: 1003 }),
  ]);
  if (folded.conflicts.length > 0) throw new Error('setup conflicts');
  return folded.state;
})();

/** A decoded API representation (statuses in the service's letter case). */
const reported = (
  id: number,
  status: string,
  participants: readonly Record<string, unknown>[] = [],
): SignRequest =>
  decodeSignRequest({
    id,
    name: 'NDA for Ada',
    status,
    formType: 'Document',
    savedTime: '2025-10-12 08:40:44',
    participants,
  })._unsafeUnwrap();

const AGREEING = [
  { id: 5, status: 'Sent' },
  { id: 6, status: 'Viewed' },
  { id: 7, status: 'Signed' },
];

describe('compareSignRequest', () => {
  it('returns [] when the service agrees with the projection', () => {
    expect(compareSignRequest(STATE, reported(1000, 'Sent', AGREEING))).toEqual([]);
  });

  it('reports a request the projection never saw', () => {
    expect(compareSignRequest(STATE, reported(4242, 'Sent', AGREEING))).toEqual([
      { kind: 'sign-request-missing', message: 'sign request 4242 is not in the projection' },
    ]);
  });

  it('reports a different request status (a missed completion webhook)', () => {
    const differences = compareSignRequest(STATE, reported(1000, 'Completed', AGREEING));
    expect(differences).toEqual([
      {
        kind: 'status',
        projected: 'sent',
        reported: 'completed',
        message: 'status: projection says sent, service says completed',
      },
    ]);
  });

  it('reports participants known to one side only, and status differences', () => {
    const differences = compareSignRequest(
      STATE,
      reported(1000, 'Sent', [
        { id: 5, status: 'Signed' },
        { id: 6 }, // no status: nothing to compare
        { id: 99, status: 'Sent' },
      ]),
    );
    expect(differences).toEqual([
      expect.objectContaining({
        kind: 'participant-status',
        participantId: 5,
        projected: 'sent',
        reported: 'signed',
      }),
      expect.objectContaining({ kind: 'participant-missing', participantId: 99 }),
      expect.objectContaining({ kind: 'participant-unreported', participantId: 7 }),
    ]);
    expect(differences.map((d) => d.message)).toEqual([
      'participant 5: projection says sent, service says signed',
      'participant 99 is reported by the service but not in the projection',
      'participant 7 is in the projection but the service does not report it',
    ]);
  });

  it('calls no participant missing that the service lists without a status (not sent the request yet)', () => {
    const differences = compareSignRequest(
      STATE,
      reported(1000, 'Sent', [
        { id: 5, status: 'Sent' },
        { id: 6, status: 'Viewed' },
        { id: 7, status: 'Signed' },
        { id: 8 },
      ]),
    );
    expect(differences).toEqual([]);
  });

  it('calls no participant unreported when the service list is incomplete', () => {
    // A participant without an id, or no list at all, could be any projected participant.
    const withoutId = reported(1000, 'Sent', [{ id: 5 }, { id: 6 }, { name: 'no id' }]);
    const { participants: _omitted, ...withoutList } = withoutId;
    for (const representation of [withoutId, withoutList]) {
      const differences = compareSignRequest(STATE, representation);
      expect(differences.filter((d) => d.kind === 'participant-unreported')).toEqual([]);
    }
    // The same projection against a complete list does report participant 7.
    const complete = compareSignRequest(STATE, reported(1000, 'Sent', [{ id: 5 }, { id: 6 }]));
    expect(complete).toEqual([
      expect.objectContaining({ kind: 'participant-unreported', participantId: 7 }),
    ]);
  });

  it('compares an unknown API participant status by its text', () => {
    const differences = compareSignRequest(
      STATE,
      reported(1000, 'Sent', [{ id: 5, status: 'Bounced' }, ...AGREEING.slice(1)]),
    );
    expect(differences).toEqual([
      expect.objectContaining({
        kind: 'participant-status',
        participantId: 5,
        projected: 'sent',
        reported: 'Bounced',
      }),
    ]);
  });

  it('reports a request deleted in the projection that the service still has', () => {
    const differences = compareSignRequest(STATE, reported(1003, 'Sent'));
    expect(differences.map((d) => d.kind)).toEqual(['sign-request-deleted']);
  });
});
