/**
 * Which lost deliveries matter, said from the story alone (not through signfold's rules): a
 * receiver can only know a status some delivered event shows. A request is `completed` or
 * `declined` only through its own event saying so, `sent` through any event of it; a participant
 * is `signed`, `declined` or `viewed` only through its own event of that type, `sent` through any
 * event of it. A lost delivery matters when it took the last such evidence with it.
 */
import type { ServiceTruth, StoryEvent } from './esign-service-model.js';

/**
 * The ids of the requests the service reports (sent or further, not deleted) whose final status,
 * or the final status of one of whose participants, no delivered event shows.
 */
export const requestsMissingEvidence = (
  events: readonly StoryEvent[],
  truth: ServiceTruth,
  lost: ReadonlySet<string>,
): number[] => {
  const ofRequest = new Map<number, Set<string>>();
  const ofParticipant = new Map<number, Set<string>>();
  const note = (map: Map<number, Set<string>>, id: number, type: string): void => {
    map.set(id, (map.get(id) ?? new Set()).add(type));
  };
  for (const { deliveryId, event } of events) {
    if (lost.has(deliveryId) || typeof event.signRequestId !== 'number') continue;
    const type = String(event.type);
    note(ofRequest, event.signRequestId, type);
    if (typeof event.participantId === 'number') note(ofParticipant, event.participantId, type);
  }
  const shows = (seen: ReadonlySet<string> | undefined, status: string, prefix: string): boolean =>
    seen !== undefined && (status === 'sent' ? seen.size > 0 : seen.has(`${prefix}-${status}`));
  return truth.signRequests
    .filter((request) => !request.deleted && request.status !== 'draft')
    .filter(
      (request) =>
        !shows(ofRequest.get(request.id), request.status, 'sign-request') ||
        request.participants.some(
          (participant) =>
            participant.status !== null &&
            !shows(ofParticipant.get(participant.id), participant.status, 'participant'),
        ),
    )
    .map((request) => request.id);
};
