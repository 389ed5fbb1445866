/**
 * The states a repair passes through. A repair lands all at once, but the
 * events it stands for (see `repairEvents`) happened one after another: a
 * reactor told "before sent, after completed" by every one of them would act
 * on the completion once per event. So each rebuilt event gets the image the
 * lost delivery would have left, and the next one starts from it.
 */
import type { SignEvent } from '../events/sign-event.js';
import type { ParticipantId } from '../ids.js';
import type {
  ParticipantStatus,
  ParticipantView,
  SignRequestStatus,
  SignRequestView,
} from '../projections/records.js';
import type { RequestImage } from './repair-events.js';

const REQUEST_STATUS: Partial<Record<SignEvent['type'], SignRequestStatus>> = {
  'sign-request-sent': 'sent',
  'sign-request-completed': 'completed',
  'sign-request-declined': 'declined',
};

const PARTICIPANT_STATUS: Partial<Record<SignEvent['type'], ParticipantStatus>> = {
  'participant-sent': 'sent',
  'participant-viewed': 'viewed',
  'participant-signed': 'signed',
  'participant-declined': 'declined',
};

/**
 * A record on its way: the repaired record when it has reached its repaired
 * status, the record before the repair while it still has that one, else the
 * repaired record at the status in between, without the outcome times it has
 * not reached yet.
 */
const requestAt = (
  status: SignRequestStatus | undefined,
  was: SignRequestView | undefined,
  now: SignRequestView,
): SignRequestView | undefined => {
  if (status === now.status) return now;
  if (status === was?.status) return was;
  if (status === undefined) return undefined;
  return Object.freeze({
    ...now,
    status,
    completedAt: null,
    declinedAt: null,
    outcomeFrom: null,
  });
};

const participantAt = (
  status: ParticipantStatus | undefined,
  was: ParticipantView | undefined,
  now: ParticipantView,
): ParticipantView | undefined => {
  if (status === now.status) return now;
  if (status === was?.status) return was;
  if (status === undefined) return undefined;
  return Object.freeze({ ...now, status, signedAt: null, declinedAt: null, outcomeFrom: null });
};

/**
 * The image after each of `events` (rebuilt by `repairEvents` from `before`
 * and `after`): element `i` is what event `i` leaves and what event `i + 1`
 * starts from; element 0 is `before` itself, so the result has one more
 * element than `events`. Statuses move as the delivered events would have
 * moved them (a participant event sends a request still unsent); once every
 * event is through, the image is `after`'s. Pure.
 */
export const repairSteps = (
  before: RequestImage,
  after: RequestImage,
  events: readonly SignEvent[],
): readonly RequestImage[] => {
  const now = after.signRequest;
  if (now === undefined) return [before];
  let request = before.signRequest?.status;
  const participants = new Map<ParticipantId, ParticipantStatus | undefined>();
  for (const [id, p] of before.participants) participants.set(id, p.status);
  const images: RequestImage[] = [before];
  for (const event of events) {
    const target = REQUEST_STATUS[event.type];
    if (target !== undefined) request = target;
    const moved = PARTICIPANT_STATUS[event.type];
    if (moved !== undefined && 'participantId' in event) {
      participants.set(event.participantId, moved);
      if (request === undefined || request === 'draft') request = 'sent';
    }
    const image = new Map<ParticipantId, ParticipantView>();
    for (const [id, status] of participants) {
      const p = after.participants.get(id);
      const at =
        p === undefined
          ? before.participants.get(id)
          : participantAt(status, before.participants.get(id), p);
      if (at !== undefined) image.set(id, at);
    }
    images.push({ signRequest: requestAt(request, before.signRequest, now), participants: image });
  }
  return images;
};
