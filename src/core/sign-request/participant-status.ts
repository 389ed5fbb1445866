/**
 * Participant status (docs/service-interface.md). Only one sample value (`Signed`) is published,
 * so unknown values are kept rather than rejected: the type makes callers handle
 * them instead of pretending the list is complete.
 */
import type { OpenEnum } from './shape.js';

/** Participant status values the library knows, in canonical (lower) case. */
export const KNOWN_PARTICIPANT_STATUSES = ['sent', 'viewed', 'signed', 'declined'] as const;

/** A known participant status. */
export type KnownParticipantStatus = (typeof KNOWN_PARTICIPANT_STATUSES)[number];

/**
 * A participant status: a known value in lower case (`'signed'`), or
 * `{ other: 'Bounced' }` holding an unknown value exactly as received. Narrow
 * with `typeof status === 'string'` or against `KNOWN_PARTICIPANT_STATUSES`.
 * Invariant: `other` never equals a known value ignoring ASCII letter case.
 */
export type ApiParticipantStatus = OpenEnum<KnownParticipantStatus>;

/** Whether a participant status is one of the known values. */
export const isKnownParticipantStatus = (
  status: ApiParticipantStatus,
): status is KnownParticipantStatus => typeof status === 'string';

/** The wire text of a participant status: known values in lower case, others as received. */
export const participantStatusText = (status: ApiParticipantStatus): string =>
  typeof status === 'string' ? status : status.other;
