/**
 * The pure domain, as `signfold/core` and `signfold` both export it: decoders
 * and encoders, the ids, the projections with `reduce`, `fold`, their queries
 * and reconciliation, and the reactor model. Listed once, here; each entry
 * point re-exports it whole.
 */

export type { Result } from 'neverthrow';
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
export type { EventType, MemberName } from './events/event-members.js';
export { EVENT_MEMBERS, EVENT_TYPES, isEventType } from './events/event-members.js';
export type { JsonSchema } from './events/event-schema.js';
export { anyEventJsonSchema, eventJsonSchema } from './events/event-schema.js';
export type {
  EventOf,
  ParticipantDeclined,
  ParticipantDownloaded,
  ParticipantEvent,
  ParticipantSent,
  ParticipantSigned,
  ParticipantViewed,
  SignEvent,
  SignRequestCompleted,
  SignRequestDeclined,
  SignRequestDeleted,
  SignRequestEvent,
  SignRequestSent,
  TemplateActivated,
  TemplateDeleted,
  TemplateEvent,
  TemplateInactivated,
} from './events/sign-event.js';
export { FOLD_RULES_VERSION } from './fold-rules.js';
export type {
  CompanyId,
  Id,
  ParticipantId,
  RoleId,
  SignRequestId,
  TemplateId,
  UserId,
} from './ids.js';
export {
  companyId,
  participantId,
  roleId,
  signRequestId,
  templateId,
  userId,
} from './ids.js';
export { decodeObservation } from './observations/decode-observation.js';
export type { Observation } from './observations/observation.js';
export { isObservationValue, OBSERVATION_RECORD } from './observations/observation.js';
export type { ObservationRecordOptions } from './observations/observation-record.js';
export { observationRecord } from './observations/observation-record.js';
export type {
  Conflict,
  ConflictKind,
  ConflictReason,
  ConflictTarget,
  IndexedConflict,
} from './projections/conflict.js';
export type { SnapshotOrigin } from './projections/load-sign-request.js';
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
export type { Difference } from './projections/reconcile.js';
export { reconcileSignRequest } from './projections/reconcile.js';
export type {
  ParticipantStatus,
  ParticipantView,
  SignRequestStatus,
  SignRequestView,
  TemplateStatus,
  TemplateView,
} from './projections/records.js';
export type { FoldResult } from './projections/reduce.js';
export { fold, reduce } from './projections/reduce.js';
export type { AttemptObserver, AttemptResult } from './reactors/attempt-result.js';
export { DEFAULT_RETRY, defineReactor } from './reactors/define-reactor.js';
export type { EffectsChange, EffectsReport } from './reactors/effects-report.js';
export type {
  CancelEffect,
  Change,
  Effect,
  EffectContext,
  JsonValue,
  MinimalAbortSignal,
  Reactor,
  ReactorDefinition,
  Repair,
  RetryPolicy,
  ShutdownSignal,
  SqlEffects,
  SqlStatement,
  TouchedViews,
  Upcast,
} from './reactors/reactor-types.js';
export { decodeSignRequest } from './sign-request/decode-sign-request.js';
export { encodeSignRequest } from './sign-request/encode-sign-request.js';
export type {
  KnownParticipantStatus,
  ParticipantStatus as ParticipantApiStatus,
} from './sign-request/participant-status.js';
export {
  isKnownParticipantStatus,
  KNOWN_PARTICIPANT_STATUSES,
  participantStatusText,
} from './sign-request/participant-status.js';
export type { SavedTimeParts } from './sign-request/saved-time.js';
export { parseSavedTime, savedTimeParts } from './sign-request/saved-time.js';
export type {
  Field,
  FieldData,
  FieldDataId,
  FieldId,
  FormType,
  Participant,
  Role,
  SavedTime,
  SignRequest,
} from './sign-request/sign-request.js';
export {
  FORM_TYPES,
  fieldDataId,
  fieldId,
  SIGN_REQUEST_STATUSES,
} from './sign-request/sign-request.js';
export { signRequestJsonSchema } from './sign-request/sign-request-schema.js';
export { defineUpcaster } from './upcasters/define-upcaster.js';
export type { UpcastFailure, UpcastValue } from './upcasters/upcast-record.js';
export { upcastRecord } from './upcasters/upcast-record.js';
export type { UpcasterFingerprint } from './upcasters/upcaster-fingerprint.js';
export { upcasterFingerprint } from './upcasters/upcaster-fingerprint.js';
export type {
  Upcaster,
  UpcasterDefinition,
  UpcastFrom,
  UpcastOutput,
} from './upcasters/upcaster-types.js';
