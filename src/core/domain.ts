/**
 * The pure domain, as `signfold/core` and `signfold` both export it: the
 * decoders and encoders of events and sign-request representations, the ids,
 * the projections with `reduce`, `fold`, their queries, and the comparison
 * with a representation. Listed once, here; each entry point re-exports it
 * whole. The reactor and upcaster kits are `signfold/reactors` and
 * `signfold/upcasters`; the event builders are `signfold/testing`'s.
 */

export type { Command } from './decider/command.js';
export { decide } from './decider/decide.js';
export type { Rejection } from './decider/rejection.js';
export type { DecodeError, DecodeErrorKind } from './decode-error.js';
export { formatDecodeError } from './decode-error.js';
export type {
  DecodeEventJsonOptions,
  DecodeEventOptions,
} from './events/decode-event.js';
export { DEFAULT_MAX_EVENT_LENGTH, decodeEvent, decodeEventJson } from './events/decode-event.js';
export type { WireEvent } from './events/encode-event.js';
export { encodeEvent } from './events/encode-event.js';
export type { EventType } from './events/event-members.js';
export { EVENT_MEMBERS, EVENT_TYPES, isEventType } from './events/event-members.js';
export type { JsonSchema } from './events/event-schema.js';
export { anyEventJsonSchema, eventJsonSchema } from './events/event-schema.js';
export type {
  EventOf,
  ParticipantEvent,
  SignEvent,
  SignRequestEvent,
  TemplateEvent,
} from './events/sign-event.js';
export { FOLD_RULES_VERSION } from './fold-rules.js';
export type {
  CompanyId,
  ParticipantId,
  RoleId,
  SignRequestId,
  TemplateId,
  UserId,
} from './ids.js';
export { decodeObservation } from './observations/decode-observation.js';
export type { Observation } from './observations/observation.js';
export type { ObservationRecordOptions } from './observations/observation-record.js';
export { observationRecord } from './observations/observation-record.js';
export type { Difference } from './projections/compare-sign-request.js';
export { compareSignRequest } from './projections/compare-sign-request.js';
export type {
  Conflict,
  ConflictKind,
  ConflictReason,
  ConflictTarget,
  IndexedConflict,
} from './projections/conflict.js';
export type { RepresentationOrigin } from './projections/load-sign-request.js';
export { loadSignRequest } from './projections/load-sign-request.js';
export type { Outcome } from './projections/projection-draft.js';
export type { ProjectionState } from './projections/projection-state.js';
export {
  getParticipant,
  getSignRequest,
  getTemplate,
  initialState,
  listParticipants,
  listSignRequests,
  listTemplates,
} from './projections/projection-state.js';
export type {
  SignRequestFilter,
  TemplateStats,
} from './projections/queries.js';
export {
  countSignRequestsByStatus,
  findSignRequests,
  participantsAwaitingAction,
  templateStats,
} from './projections/queries.js';
export type {
  OutcomeSource,
  ParticipantStatus,
  ParticipantView,
  SignRequestStatus,
  SignRequestView,
  TemplateStatus,
  TemplateView,
} from './projections/records.js';
export type { FoldResult, RejectedBody } from './projections/reduce.js';
export { fold, reduce } from './projections/reduce.js';
export { decodeSignRequest } from './sign-request/decode-sign-request.js';
export { encodeSignRequest } from './sign-request/encode-sign-request.js';
export type { ApiParticipantStatus } from './sign-request/participant-status.js';
export { KNOWN_PARTICIPANT_STATUSES } from './sign-request/participant-status.js';
export type { SavedTime } from './sign-request/saved-time.js';
export { parseSavedTime } from './sign-request/saved-time.js';
export type {
  Field,
  FieldData,
  FieldDataId,
  FieldId,
  FormType,
  Participant,
  Role,
  SignRequest,
} from './sign-request/sign-request.js';
export { FORM_TYPES, SIGN_REQUEST_STATUSES } from './sign-request/sign-request.js';
export { signRequestJsonSchema } from './sign-request/sign-request-schema.js';
