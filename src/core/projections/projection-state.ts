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

/**
 * The template with this id (a plain number or a branded id), or `undefined`.
 *
 * @example
 * ```ts
 * import { fold, getTemplate, initialState } from 'signfold';
 * import { events } from 'signfold/testing';
 *
 * const { state } = fold(initialState(), [events.templateActivated({ templateId: 7 })]);
 * console.log(getTemplate(state, 7)?.status, getTemplate(state, 8)); // active undefined
 * ```
 */
export const getTemplate = (state: ProjectionState, id: number): TemplateView | undefined =>
  state.templates.get(id as TemplateId);

/**
 * The sign request with this id (a plain number or a branded id), or `undefined`.
 *
 * @example
 * ```ts
 * import { fold, getSignRequest, initialState } from 'signfold';
 * import { events } from 'signfold/testing';
 *
 * const { state } = fold(initialState(), [
 *   events.signRequestSent({ signRequestId: 42 }),
 *   events.signRequestCompleted({ signRequestId: 42 }),
 * ]);
 * const request = getSignRequest(state, 42);
 * console.log(request?.status, request?.name); // completed NDA for Ada
 * ```
 */
export const getSignRequest = (state: ProjectionState, id: number): SignRequestView | undefined =>
  state.signRequests.get(id as SignRequestId);

/**
 * The participant of this sign request with this id, or `undefined`.
 *
 * @example
 * ```ts
 * import { fold, getParticipant, initialState } from 'signfold';
 * import { events } from 'signfold/testing';
 *
 * const { state } = fold(initialState(), [
 *   events.participantSent({ signRequestId: 42, participantId: 5 }),
 *   events.participantViewed({ signRequestId: 42, participantId: 5 }),
 * ]);
 * const ada = getParticipant(state, 42, 5);
 * console.log(ada?.name, ada?.status, ada?.viewCount); // Ada Lovelace viewed 1
 * ```
 */
export const getParticipant = (
  state: ProjectionState,
  signRequestId: number,
  participantId: number,
): ParticipantView | undefined =>
  state.participants.get(signRequestId as SignRequestId)?.get(participantId as ParticipantId);

/**
 * Every template, in first-seen order, as a new array.
 *
 * @example
 * ```ts
 * import { fold, initialState, listTemplates } from 'signfold';
 * import { events } from 'signfold/testing';
 *
 * const { state } = fold(initialState(), [
 *   events.templateActivated({ templateId: 7, templateName: 'NDA' }),
 *   events.templateInactivated({ templateId: 8, templateName: 'Lease' }),
 * ]);
 * console.log(listTemplates(state).map((t) => `${t.name}: ${t.status}`)); // [ 'NDA: active', 'Lease: inactive' ]
 * ```
 */
export const listTemplates = (state: ProjectionState): readonly TemplateView[] => [
  ...state.templates.values(),
];

/**
 * Every sign request, in first-seen order, as a new array.
 *
 * @example
 * ```ts
 * import { fold, initialState, listSignRequests } from 'signfold';
 * import { events } from 'signfold/testing';
 *
 * const { state } = fold(initialState(), [
 *   events.signRequestSent({ signRequestId: 2 }),
 *   events.signRequestDeclined({ signRequestId: 1 }),
 * ]);
 * console.log(listSignRequests(state).map((r) => `${r.id} ${r.status}`)); // [ '2 sent', '1 declined' ]
 * ```
 */
export const listSignRequests = (state: ProjectionState): readonly SignRequestView[] => [
  ...state.signRequests.values(),
];

/**
 * Every participant (of one sign request if `signRequestId` is given), in first-seen order, as a new array.
 *
 * @example
 * ```ts
 * import { fold, initialState, listParticipants } from 'signfold';
 * import { events } from 'signfold/testing';
 *
 * const { state } = fold(initialState(), [
 *   events.participantSent({ signRequestId: 1, participantId: 5 }),
 *   events.participantSigned({ signRequestId: 2, participantId: 6, participantName: 'Grace' }),
 * ]);
 * console.log(listParticipants(state).length); // 2
 * console.log(listParticipants(state, 2).map((p) => `${p.name} ${p.status}`)); // [ 'Grace signed' ]
 * ```
 */
export const listParticipants = (
  state: ProjectionState,
  signRequestId?: number,
): readonly ParticipantView[] => {
  if (signRequestId !== undefined) {
    const ofRequest = state.participants.get(signRequestId as SignRequestId);
    return ofRequest === undefined ? [] : [...ofRequest.values()];
  }
  const all: ParticipantView[] = [];
  for (const ofRequest of state.participants.values()) all.push(...ofRequest.values());
  return all;
};
