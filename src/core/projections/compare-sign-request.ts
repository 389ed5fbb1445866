import type { ParticipantId } from '../ids.js';
import { participantStatusText } from '../sign-request/participant-status.js';
import type { SignRequest } from '../sign-request/sign-request.js';
import type { ProjectionState } from './projection-state.js';

/** One way the projection differs from a representation fetched from the API. */
export type Difference =
  | { readonly kind: 'sign-request-missing'; readonly message: string }
  | { readonly kind: 'sign-request-deleted'; readonly message: string }
  | {
      readonly kind: 'status';
      readonly projected: string;
      readonly reported: string;
      readonly message: string;
    }
  | {
      readonly kind: 'participant-missing';
      readonly participantId: ParticipantId;
      readonly message: string;
    }
  | {
      readonly kind: 'participant-unreported';
      readonly participantId: ParticipantId;
      readonly message: string;
    }
  | {
      readonly kind: 'participant-status';
      readonly participantId: ParticipantId;
      readonly projected: string;
      readonly reported: string;
      readonly message: string;
    };

/**
 * Lists how the projection differs from the service's own representation of a
 * sign request, to find missed webhooks: request status, participants known
 * to one side only (a participant is "unreported" only when the service lists
 * every participant with its id), participant statuses (unknown API statuses
 * compare by text).
 * An empty list means they agree.
 *
 * @example
 * ```ts
 * import { decodeSignRequest, fold, initialState, compareSignRequest } from 'signfold';
 * import { events } from 'signfold/testing';
 *
 * const { state } = fold(initialState(), [events.signRequestSent()]);
 * const reported = decodeSignRequest({
 *   id: 1000, name: 'NDA for Ada', status: 'completed', formType: 'Form', savedTime: '2024-01-02 03:04:05',
 * });
 * if (reported.isOk()) console.log(compareSignRequest(state, reported.value).map((d) => d.message));
 * // [ 'status: projection says sent, service says completed' ]: a sign-request-completed was missed
 * ```
 */
export const compareSignRequest = (state: ProjectionState, reported: SignRequest): Difference[] => {
  const projected = state.signRequests.get(reported.id);
  if (projected === undefined) {
    return [
      {
        kind: 'sign-request-missing',
        message: `sign request ${reported.id} is not in the projection`,
      },
    ];
  }
  const differences: Difference[] = [];
  if (projected.deleted) {
    differences.push({
      kind: 'sign-request-deleted',
      message: `sign request ${reported.id} is deleted in the projection but the service still reports it`,
    });
  }
  if (projected.status !== reported.status) {
    differences.push({
      kind: 'status',
      projected: projected.status,
      reported: reported.status,
      message: `status: projection says ${projected.status}, service says ${reported.status}`,
    });
  }
  const known = state.participants.get(reported.id) ?? new Map();
  const seen = new Set<ParticipantId>();
  for (const p of reported.participants ?? []) {
    if (p.id === undefined) continue;
    seen.add(p.id);
    const mine = known.get(p.id);
    // Listed without a status: not sent the request yet (a signing order), so no delivery was lost.
    if (mine === undefined && p.status === undefined) continue;
    if (mine === undefined) {
      differences.push({
        kind: 'participant-missing',
        participantId: p.id,
        message: `participant ${p.id} is reported by the service but not in the projection`,
      });
      continue;
    }
    if (p.status === undefined) continue;
    const text = participantStatusText(p.status);
    if (text !== mine.status) {
      differences.push({
        kind: 'participant-status',
        participantId: p.id,
        projected: mine.status,
        reported: text,
        message: `participant ${p.id}: projection says ${mine.status}, service says ${text}`,
      });
    }
  }
  // Only a complete list can show that a participant is missing from the service's side.
  const complete = reported.participants?.every((p) => p.id !== undefined) === true;
  for (const id of complete ? known.keys() : []) {
    if (!seen.has(id)) {
      differences.push({
        kind: 'participant-unreported',
        participantId: id,
        message: `participant ${id} is in the projection but the service does not report it`,
      });
    }
  }
  return differences;
};
