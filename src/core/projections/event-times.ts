/**
 * The "since when" of the views: `sentAt`, `viewedAt`, the outcome times
 * (`completedAt`, `declinedAt`, `deletedAt` of a request; `signedAt`,
 * `declinedAt` of a participant) and `lastEventAt` hold the `receivedAt` of
 * the events that moved them, so a query for stuck signers or a time to
 * complete reads columns instead of parsing events. They are stamped after
 * an event is applied, from the statuses before and after it, so the status
 * rules stay in the handlers alone. An event without `receivedAt` (a bare
 * line) leaves them as they were. An observation's repair stamps the outcome
 * times with its own time instead (see `stampObservedOutcomes`).
 */
import type { Draft } from 'immer';
import type { SignEvent } from '../events/sign-event.js';
import type { Conflict } from './conflict.js';
import type { Outcome, ProjectionDraft } from './projection-draft.js';
import type {
  OutcomeSource,
  ParticipantStatus,
  ParticipantView,
  SignRequestStatus,
  SignRequestView,
} from './records.js';

/** The times of a request no timed event has moved yet: every new record starts from them. */
export const NO_SIGN_REQUEST_TIMES = {
  sentAt: null,
  completedAt: null,
  declinedAt: null,
  deletedAt: null,
  outcomeFrom: null,
  lastEventAt: null,
} as const satisfies Partial<SignRequestView>;

/** The times of a participant no timed event has moved yet. */
export const NO_PARTICIPANT_TIMES = {
  sentAt: null,
  viewedAt: null,
  signedAt: null,
  declinedAt: null,
  outcomeFrom: null,
  lastEventAt: null,
} as const satisfies Partial<ParticipantView>;

/**
 * Stamps a request's outcome time when its status moved from `was` to a
 * final one. Shared by events and observations, so both mark the same way.
 */
export const stampRequestOutcome = (
  r: Draft<SignRequestView>,
  was: SignRequestStatus | undefined,
  at: string,
  from: OutcomeSource,
): void => {
  if (r.status === was) return;
  if (r.status === 'completed') r.completedAt = at;
  else if (r.status === 'declined') r.declinedAt = at;
  else return;
  r.outcomeFrom = from;
};

/** Stamps a participant's outcome time when its status moved from `was` to a final one. */
export const stampParticipantOutcome = (
  p: Draft<ParticipantView>,
  was: ParticipantStatus | undefined,
  at: string,
  from: OutcomeSource,
): void => {
  if (p.status === was) return;
  if (p.status === 'signed') p.signedAt = at;
  else if (p.status === 'declined') p.declinedAt = at;
  else return;
  p.outcomeFrom = from;
};

/**
 * Applies `event` with `handler` and, when applied, stamps the views it moved
 * with `at` (see the module comment). The statuses they had before are read
 * first, into locals rather than an object (one object per event was about 45
 * bytes of a replay's allocation): the first look-up of the event's records.
 */
export const applyStamped = (
  draft: ProjectionDraft,
  event: SignEvent,
  at: string,
  handler: (draft: ProjectionDraft, event: SignEvent) => Outcome | Conflict,
): Outcome | Conflict => {
  if (!('signRequestId' in event)) return handler(draft, event);
  const request = draft.signRequest(event.signRequestId);
  const requestWas = request?.status;
  const deletedWas = request?.deleted === true;
  const participantWas =
    'participantId' in event
      ? draft.participant(event.signRequestId, event.participantId)?.status
      : undefined;
  const outcome = handler(draft, event);
  if (outcome === 'applied') {
    stampEventTimes(draft, event, at, requestWas, deletedWas, participantWas);
  }
  return outcome;
};

/** Stamps the views `event` (applied, received at `at`) touched, from the statuses they had before. */
const stampEventTimes = (
  draft: ProjectionDraft,
  event: SignEvent,
  at: string,
  requestWas: SignRequestStatus | undefined,
  deletedWas: boolean,
  participantWas: ParticipantStatus | undefined,
): void => {
  if (!('signRequestId' in event)) return;
  // Written in place, not through recipes: two closures per event were a sixth of a replay's allocation.
  const r = draft.writableSignRequest(event.signRequestId);
  if (r !== undefined) {
    r.lastEventAt = at;
    if (r.status === 'sent' && requestWas !== 'sent') r.sentAt = at;
    if (r.deleted && !deletedWas) r.deletedAt = at;
    stampRequestOutcome(r, requestWas, at, 'event');
  }
  if (!('participantId' in event)) return;
  const p = draft.writableParticipant(event.signRequestId, event.participantId);
  if (p === undefined) return;
  p.lastEventAt = at;
  if (event.type === 'participant-sent' && participantWas === undefined) p.sentAt = at;
  if (p.status === 'viewed' && participantWas !== 'viewed') p.viewedAt = at;
  stampParticipantOutcome(p, participantWas, at, 'event');
};
