/**
 * `signfold`: the decoders of webhook events and sign-request representations,
 * the pure projections and their queries, the projection engine (replay,
 * checkpoints, snapshots, audit trails, time travel), the memory and file
 * event logs, and the webhook receiver (`createWebhookHandler`, also
 * `signfold/webhooks`). Everything a user may rely on is named here; the README is the
 * landing page of this reference.
 *
 * @packageDocumentation
 */

export type { Result } from 'neverthrow';
export type { DecodeError, DecodeErrorKind } from './decode-error.js';
export { formatDecodeError } from './decode-error.js';
export type { AuditEntry, AuditTrail, AuditTrailData } from './engine/audit-trail.js';
export type {
  AppendItem,
  AppendOptions,
  AppendOutcome,
  BatchEventLog,
  EventLog,
  LockHolder,
  LogError,
  LogRecord,
  ReadOptions,
} from './engine/event-log.js';
export type { JsonText, JsonTextError } from './engine/json-text.js';
export { jsonText } from './engine/json-text.js';
export { EventLogReadError } from './engine/log-errors.js';
export { DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES } from './engine/log-limits.js';
export type { Projector } from './engine/projector.js';
export { createProjector } from './engine/projector.js';
export type {
  ApplyResult,
  BadInputPolicy,
  CheckpointPastLog,
  Halted,
  LiveEvent,
  ProjectorOptions,
  ProjectorStart,
  ProjectorStats,
  ReadableLog,
  ReplayError,
  ReplayOptions,
} from './engine/projector-types.js';
export type { QuarantineEntry, QuarantineReason } from './engine/quarantine.js';
export type { Snapshot, SnapshotError } from './engine/snapshot.js';
export {
  restoreProjector,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  takeSnapshot,
} from './engine/snapshot.js';
export type { Sha256Hex } from './engine/snapshot-document.js';
export { decodeSnapshotDocument, encodeSnapshotDocument } from './engine/snapshot-document.js';
export { stateAsOf } from './engine/time-travel.js';
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
  RetryPolicy,
  ShutdownSignal,
  SqlEffects,
  SqlStatement,
  TouchedViews,
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
export type { FileEventLog, FileEventLogOptions, TornTail } from './store/file-event-log.js';
export { openFileEventLog } from './store/file-event-log.js';
export type { FileHandleIO, FileIO, OpenMode } from './store/file-io.js';
export type { FileReadOptions } from './store/file-record-stream.js';
export { readFileEventLog } from './store/file-record-stream.js';
export type { MemoryEventLog, MemoryEventLogOptions } from './store/memory-event-log.js';
export { createMemoryEventLog } from './store/memory-event-log.js';
export type { LogLineContext } from './store/parse-log-line.js';
export { parseLogLine } from './store/parse-log-line.js';
export type { ExecutionCounts } from './store/reactors/effect-executor.js';
export type {
  FileReactorRunner,
  FileReactorRunnerOptions,
  ReactorRunError,
  ReactorRunSummary,
  StopSignal,
} from './store/reactors/file-reactor-runner.js';
export {
  createFileReactorRunner,
  DEFAULT_SHUTDOWN_GRACE_MS,
} from './store/reactors/file-reactor-runner.js';
export { decodeSnapshot, encodeSnapshot } from './store/snapshot-checksum.js';
export type { SnapshotFileError } from './store/snapshot-file.js';
export { readSnapshotFile, writeSnapshotFile } from './store/snapshot-file.js';
export type { WriterLockOptions } from './store/writer-lock.js';
export type {
  NodeWebhookRequest,
  NodeWebhookResponse,
  SignatureAlgorithm,
  SignatureEncoding,
  SignatureOptions,
  TimestampOptions,
  WebhookHandler,
  WebhookHandlerOptions,
  WebhookHeaders,
  WebhookOutcome,
  WebhookRequest,
  WebhookResponse,
} from './webhooks/index.js';
export {
  createWebhookHandler,
  DEFAULT_DELIVERY_HEADER,
  DEFAULT_SIGNATURE_HEADER,
  handleNodeRequest,
  signWebhookBody,
} from './webhooks/index.js';
