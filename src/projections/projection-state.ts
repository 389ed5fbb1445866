import { freeze } from 'immer';
import type { ParticipantId, SignRequestId, TemplateId } from '../ids.js';
import { markPublished } from './published-states.js';
import type { ParticipantView, SignRequestView, TemplateView } from './records.js';

/**
 * The immutable projections of templates, sign requests and participants.
 * Participants are grouped by sign request, then keyed by participant id.
 */
export interface ProjectionState {
  readonly templates: ReadonlyMap<TemplateId, TemplateView>;
  readonly signRequests: ReadonlyMap<SignRequestId, SignRequestView>;
  readonly participants: ReadonlyMap<SignRequestId, ReadonlyMap<ParticipantId, ParticipantView>>;
}

// Deeply frozen (immer's `freeze` also makes the Maps refuse writes): the empty
// Maps are shared by every state that never writes to them.
const EMPTY: ProjectionState = markPublished(
  freeze({ templates: new Map(), signRequests: new Map(), participants: new Map() }, true),
);

/** The state before any event: three empty projections. */
export const initialState = (): ProjectionState => EMPTY;

/** The template with this id, or `undefined`. */
export const getTemplate = (state: ProjectionState, id: TemplateId): TemplateView | undefined =>
  state.templates.get(id);

/** The sign request with this id, or `undefined`. */
export const getSignRequest = (
  state: ProjectionState,
  id: SignRequestId,
): SignRequestView | undefined => state.signRequests.get(id);

/** The participant of this sign request with this id, or `undefined`. */
export const getParticipant = (
  state: ProjectionState,
  signRequestId: SignRequestId,
  participantId: ParticipantId,
): ParticipantView | undefined => state.participants.get(signRequestId)?.get(participantId);

/** Every template, in first-seen order. */
export const listTemplates = (state: ProjectionState): IterableIterator<TemplateView> =>
  state.templates.values();

/** Every sign request, in first-seen order. */
export const listSignRequests = (state: ProjectionState): IterableIterator<SignRequestView> =>
  state.signRequests.values();

/** Every participant (of one sign request if `signRequestId` is given), in first-seen order. */
export function* listParticipants(
  state: ProjectionState,
  signRequestId?: SignRequestId,
): Generator<ParticipantView, void, undefined> {
  if (signRequestId !== undefined) {
    const ofRequest = state.participants.get(signRequestId);
    if (ofRequest !== undefined) yield* ofRequest.values();
    return;
  }
  for (const ofRequest of state.participants.values()) yield* ofRequest.values();
}
