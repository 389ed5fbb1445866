import type { ParticipantStatus, SignRequestStatus } from './records.js';

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
