import type { ProjectionState } from '../core/projections/projection-state.js';
import type { Change } from '../core/reactors/reactor-types.js';
import type { Upcaster } from '../core/upcasters/upcaster-types.js';
import type { AuditTrail } from './audit-trail.js';
import type { EventLog } from './event-log.js';
import type { QuarantineEntry, QuarantineReason } from './quarantine.js';
import type { Tracing } from './tracing.js';

/** Anything that streams log records in batches: an {@link EventLog}, or `{ read: o => readFileEventLog(path, o) }`. */
export type ReadableLog = Pick<EventLog, 'read'>;

/** What to do with a record that cannot be applied. */
export type BadInputPolicy = 'skip' | 'halt';

/** Options of {@link createProjector}. */
export interface ProjectorOptions {
  /** `skip` (default) quarantines and goes on; `halt` stops at the first bad record. */
  readonly policy?: BadInputPolicy;
  /** Keep per-record audit trails (default `true`; one small entry per event). */
  readonly audit?: boolean;
  /** Decode events in strict mode (unknown members rejected). Default `false`. */
  readonly strict?: boolean;
  /**
   * Rewrite each record before it is decoded, in order (see
   * docs/engine.md#upcasters). A record they drop is a no-op; one they turn
   * into several events applies them in order at its position; an upcaster
   * that throws, or makes what does not decode, quarantines the record
   * (`invalid-event`, naming it). Default: none.
   */
  readonly upcasters?: readonly Upcaster[];
  /**
   * Called after each *applied* event (not a no-op, duplicate, conflict,
   * invalid event or bad line) with the views it touched before and after:
   * what reactors react to. When unset the projector reads no views for it.
   * It must not throw (a throw propagates out of `apply`/`replay`).
   */
  readonly onApplied?: (change: Change) => void;
  /**
   * Where to tell of each record projected past the checkpoint, as a
   * `signfold.project` span in its delivery's trace (docs/tracing.md).
   * Default: nothing is traced and nothing is gathered for it.
   */
  readonly tracing?: Tracing;
}

/** Where a projector starts from (see `restoreProjector` for snapshots). */
export interface ProjectorStart {
  readonly state: ProjectionState;
  readonly checkpoint: number;
  readonly audit?: AuditTrail;
  readonly quarantine?: readonly QuarantineEntry[];
  /** Counters to continue from (a restored snapshot's). */
  readonly stats?: ProjectorStats;
}

/** What applying one record did. */
export type ApplyResult =
  | 'applied'
  | 'no-op'
  | 'already-applied'
  | 'quarantined'
  /** An unterminated last line (see `Projector.incompleteTail`): not data yet. */
  | 'incomplete';

/** Why a `halt` projector stopped; everything before `position` is applied. */
export interface Halted {
  readonly kind: 'halted';
  readonly position: number;
  readonly line: number | undefined;
  readonly reason: QuarantineReason;
  readonly message: string;
}

/**
 * Why a replay did not start: the projector's checkpoint (typically a
 * restored snapshot's) lies past the log's last position, so the snapshot
 * was taken from another or a longer log and every record would be skipped.
 */
export interface CheckpointPastLog {
  readonly kind: 'checkpoint-past-log';
  readonly checkpoint: number;
  readonly message: string;
}

/** Why `Projector.replay` stopped with an error. */
export type ReplayError = Halted | CheckpointPastLog;

/** Counters of what a projector has processed. */
export interface ProjectorStats {
  readonly applied: number;
  readonly noOps: number;
  readonly conflicts: number;
  readonly invalid: number;
  readonly alreadyApplied: number;
}

/** Options of {@link Projector.replay}. */
export interface ReplayOptions {
  /** Stop after this position (inclusive): time travel. */
  readonly until?: number;
  /** Called after each batch read from the log. */
  readonly onProgress?: (position: number, processed: number) => void;
}

/** An event to apply live, as received (raw JSON value), with its log position. */
export interface StoredRecord {
  readonly position: number;
  readonly event: unknown;
  readonly receivedAt?: string;
  /** The delivery id it was stored under, if any (passed on to `onApplied`). */
  readonly deliveryId?: string;
  /** The received text, kept (truncated) if the event is quarantined. */
  readonly raw?: string;
}
