/**
 * `signfold`: the pure domain (decoders, projections, queries) and the
 * engine that folds a log into them (the projector, snapshots, audit trails,
 * time travel, reconciliation, the event-log port). Each adapter has an entry
 * point of its own: `signfold/file` (the file and memory logs),
 * `signfold/postgres`, `signfold/webhooks`, `signfold/http`, `signfold/otel`;
 * the kits are `signfold/reactors`, `signfold/upcasters` and
 * `signfold/testing`. `signfold/core` is this entry point without the
 * engine. The README is the landing page of this reference.
 *
 * @packageDocumentation
 */

export * from './core/domain.js';
export type { AuditEntry, AuditTrail } from './engine/audit-trail.js';
export type {
  AppendOptions,
  AppendOutcome,
  BatchEventLog,
  EventLog,
  LogRecord,
  NewRecord,
  ReadOptions,
} from './engine/event-log.js';
export type { JsonText, JsonTextError } from './engine/json-text.js';
export { jsonText } from './engine/json-text.js';
export { EventLogReadError } from './engine/log-errors.js';
export { DEFAULT_MAX_EVENT_BYTES } from './engine/log-limits.js';
export type { Projector } from './engine/projector.js';
export { createProjector } from './engine/projector.js';
export type {
  ApplyResult,
  BadInputPolicy,
  Halted,
  ProjectorOptions,
  ProjectorStats,
  ReadableLog,
  ReplayError,
  ReplayOptions,
  StoredRecord,
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
export { restoreProjector, takeSnapshot } from './engine/snapshot.js';
export { stateAsOf } from './engine/time-travel.js';
