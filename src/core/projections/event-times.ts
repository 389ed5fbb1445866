/**
 * The "since when" of the views: `sentAt`, `viewedAt` and `lastEventAt`
 * hold the `receivedAt` of the events that moved them, so a query for
 * stuck signers reads columns instead of parsing events. They are stamped
 * after an event is applied, from the statuses before and after it, so the
 * status rules stay in the handlers alone. An event without `receivedAt` (a
 * bare line) leaves them as they were.
 */
import type { SignEvent } from '../events/sign-event.js';
import type { ProjectionDraft } from './projection-draft.js';
import type { ParticipantStatus, SignRequestStatus } from './records.js';

/** The statuses an event may move, read before it is applied. */
export interface StatusesBefore {
  readonly signRequest: SignRequestStatus | undefined;
  readonly participant: ParticipantStatus | undefined;
}

const NONE: StatusesBefore = { signRequest: undefined, participant: undefined };

/** The statuses of the records `event` touches, before it is applied. */
export const statusesBefore = (draft: ProjectionDraft, event: SignEvent): StatusesBefore => {
  if (!('signRequestId' in event)) return NONE;
  return {
    signRequest: draft.signRequest(event.signRequestId)?.status,
    participant:
      'participantId' in event
        ? draft.participant(event.signRequestId, event.participantId)?.status
        : undefined,
  };
};

/** Stamps the views `event` (applied, received at `at`) touched; see the module comment. */
export const stampEventTimes = (
  draft: ProjectionDraft,
  event: SignEvent,
  at: string,
  before: StatusesBefore,
): void => {
  if (!('signRequestId' in event)) return;
  const request = draft.signRequest(event.signRequestId);
  if (request !== undefined) {
    const sent = request.status === 'sent' && before.signRequest !== 'sent';
    draft.updateSignRequest(event.signRequestId, (r) => {
      r.lastEventAt = at;
      if (sent) r.sentAt = at;
    });
  }
  if (!('participantId' in event)) return;
  const participant = draft.participant(event.signRequestId, event.participantId);
  if (participant === undefined) return;
  const sent = event.type === 'participant-sent' && before.participant === undefined;
  const viewed = participant.status === 'viewed' && before.participant !== 'viewed';
  draft.updateParticipant(event.signRequestId, event.participantId, (p) => {
    p.lastEventAt = at;
    if (sent) p.sentAt = at;
    if (viewed) p.viewedAt = at;
  });
};
