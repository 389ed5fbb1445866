/**
 * `signfold`: the decoders of webhook events and sign-request representations,
 * the pure projections and their queries, the projection engine (replay,
 * checkpoints, snapshots, audit trails, time travel), the memory and file
 * event logs, and the webhook receiver (`createWebhookHandler`, also
 * `signfold/webhooks`). Everything a user may rely on is named here; the README is the
 * landing page of this reference. The pure domain is `signfold/core`'s, re-exported
 * whole; this file adds what needs Node.
 *
 * @packageDocumentation
 */

export * from './core/domain.js';
export type { AuditEntry, AuditTrail, AuditTrailData } from './engine/audit-trail.js';
export type {
  AppendItem,
  AppendOptions,
  AppendOutcome,
  BatchEventLog,
  EventLog,
  LogRecord,
  ReadOptions,
} from './engine/event-log.js';
export type { FoldedWith } from './engine/folded-with.js';
export type { ForgetReport, ForgetRequest } from './engine/forget-report.js';
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
export type {
  FetchSignRequest,
  ReconcileOptions,
  ReconcileResult,
  ReconcileSummary,
} from './engine/reconcile.js';
export { reconcile, staleOpenRequests } from './engine/reconcile.js';
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
export { TRACE_ATTRIBUTE } from './engine/trace-attributes.js';
export {
  NO_TRACING,
  type TraceAttributes,
  type TraceSpan,
  type TraceSpanKind,
  type TraceSpanOptions,
  type Tracing,
} from './engine/tracing.js';
export type { FileEventLog, FileEventLogOptions, TornTail } from './store/file-event-log.js';
export { openFileEventLog } from './store/file-event-log.js';
export type { FileHandleIO, FileIO, OpenMode } from './store/file-io.js';
export type { FileReadOptions } from './store/file-record-stream.js';
export { readFileEventLog } from './store/file-record-stream.js';
export type { ForgetFileError } from './store/forget/forget-file-log.js';
export { forgetFileLog } from './store/forget/forget-file-log.js';
export type { LockHolder, LogError } from './store/log-error.js';
export type { MemoryEventLog, MemoryEventLogOptions } from './store/memory-event-log.js';
export { createMemoryEventLog } from './store/memory-event-log.js';
export type { LogLineContext } from './store/parse-log-line.js';
export { parseLogLine } from './store/parse-log-line.js';
export type { ExecutionCounts } from './store/reactors/effect-executor.js';
export type {
  FileReactorProgress,
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
  BoundSecret,
  NodeWebhookRequest,
  NodeWebhookResponse,
  SignatureAlgorithm,
  SignatureEncoding,
  SignatureOptions,
  SignatureSchemeName,
  StandardWebhooksOptions,
  TimestampOptions,
  Verification,
  VerificationRequest,
  WebhookHandler,
  WebhookHandlerOptions,
  WebhookHeaders,
  WebhookOutcome,
  WebhookReply,
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
