/**
 * The lifecycles of templates, sign requests and participants: the one
 * definition of which status change is allowed. The fold's handlers judge
 * events with these functions, and the decider (src/core/decider/) judges
 * commands by running its candidate events through those handlers, so no
 * rule is written twice.
 */
import type { ParticipantEvent } from '../events/sign-event.js';
import type {
  ParticipantStatus,
  SignRequestStatus,
  SignRequestView,
  TemplateStatus,
} from './records.js';

/**
 * How a status change is judged: `same` (nothing to do), `forward` (applies,
 * even skipping steps, since events may be late or missing), or `refused`.
 */
export type StatusMove = 'same' | 'forward' | 'refused';

const SIGN_REQUEST_RANK: Readonly<Record<SignRequestStatus, number>> = {
  draft: 0,
  sent: 1,
  completed: 2,
  declined: 2,
};

/** `draft < sent < completed | declined`; the two final statuses never change. */
export const signRequestMove = (from: SignRequestStatus, to: SignRequestStatus): StatusMove => {
  if (from === to) return 'same';
  return SIGN_REQUEST_RANK[to] > SIGN_REQUEST_RANK[from] ? 'forward' : 'refused';
};

const PARTICIPANT_RANK: Readonly<Record<ParticipantStatus, number>> = {
  sent: 0,
  viewed: 1,
  signed: 2,
  declined: 2,
};

/** `sent < viewed < signed | declined`; the two final statuses never change. */
export const participantMove = (from: ParticipantStatus, to: ParticipantStatus): StatusMove => {
  if (from === to) return 'same';
  return PARTICIPANT_RANK[to] > PARTICIPANT_RANK[from] ? 'forward' : 'refused';
};

/** `active ⇄ inactive`; `deleted` is final. */
export const templateMove = (from: TemplateStatus, to: TemplateStatus): StatusMove => {
  if (from === to) return 'same';
  return from === 'deleted' ? 'refused' : 'forward';
};

/**
 * The participant's next status after an event, or `refused`. Views and
 * downloads never move a status back; a late `participant-sent` after a view
 * keeps `viewed`. `from` is `undefined` for a participant not seen yet.
 */
export const nextParticipantStatus = (
  from: ParticipantStatus | undefined,
  type: ParticipantEvent['type'],
): ParticipantStatus | 'refused' => {
  switch (type) {
    case 'participant-sent':
      if (from === undefined || from === 'sent' || from === 'viewed') return from ?? 'sent';
      return 'refused';
    case 'participant-viewed':
      return from === undefined || from === 'sent' ? 'viewed' : from;
    case 'participant-downloaded':
      return from ?? 'sent';
    case 'participant-signed':
    case 'participant-declined': {
      const to = type === 'participant-signed' ? 'signed' : 'declined';
      if (from === undefined) return to;
      return participantMove(from, to) === 'refused' ? 'refused' : to;
    }
  }
};

/**
 * Which participant events a sign request in a final status still accepts:
 * views and downloads always, a late signature on a completed request, a late
 * decline on a declined one.
 */
export const allowedOnFinalRequest = (
  request: Pick<SignRequestView, 'status'>,
  type: ParticipantEvent['type'],
): boolean => {
  if (type === 'participant-viewed' || type === 'participant-downloaded') return true;
  if (request.status === 'completed') return type === 'participant-signed';
  if (request.status === 'declined') return type === 'participant-declined';
  return true;
};
