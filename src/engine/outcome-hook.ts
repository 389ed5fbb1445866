/**
 * The one hook a projector's step reports to, and what it does with each
 * outcome: the bad-input policy (quarantine, or halt), the checkpoint once a
 * record is done, and the observers, in a fixed order: the audit trail, the
 * reactors (see `ReactorObserver`), the counters, tracing (see
 * `TraceObserver`). The observers a projector was not asked for are absent,
 * not idle: an untraced replay without reactors pays one test for each.
 */
import { err, ok, type Result } from 'neverthrow';
import type { Conflict } from '../core/projections/conflict.js';
import type { Outcome } from '../core/projections/projection-draft.js';
import type { AuditTrail } from './audit-trail.js';
import type { StepHook, StepOutcome } from './projection-step.js';
import type { ProjectorProgress } from './projector-progress.js';
import type { ApplyResult, BadInputPolicy, Halted, ProjectorStats } from './projector-types.js';
import { previewRaw, type QuarantineEntry, type QuarantineReason } from './quarantine.js';
import type { ReactorObserver } from './reactor-observer.js';
import type { ObservedRequest, RecordContext } from './record-context.js';
import type { TraceObserver } from './trace-observer.js';

// Results are immutable: share one per outcome instead of allocating per record.
const APPLIED: Result<ApplyResult, Halted> = ok('applied');
const NO_OP: Result<ApplyResult, Halted> = ok('no-op');
const QUARANTINED: Result<ApplyResult, Halted> = ok('quarantined');
/** Already processed: at or below the checkpoint, or a bad line quarantined before an interruption. */
export const ALREADY_APPLIED: Result<ApplyResult, Halted> = ok('already-applied');
/** An unterminated last line: not data yet. */
export const INCOMPLETE: Result<ApplyResult, Halted> = ok('incomplete');

/** Why a `halt` projector stopped before the record at `position` (line `line` of a file). */
const haltedAt = (
  position: number,
  line: number | undefined,
  reason: QuarantineReason,
): Halted => ({
  kind: 'halted',
  position,
  line,
  reason,
  message: `halted at position ${position}${line === undefined ? '' : ` (line ${line})`}: ${reason.message}`,
});

/** What an {@link OutcomeHook} keeps and tells; only `progress` and `policy` are required. */
export interface OutcomeHookParts {
  readonly policy: BadInputPolicy;
  readonly progress: ProjectorProgress;
  readonly quarantine?: readonly QuarantineEntry[] | undefined;
  readonly stats?: ProjectorStats | undefined;
  readonly audit?: AuditTrail | undefined;
  readonly reactors?: ReactorObserver | undefined;
  readonly tracing?: TraceObserver | undefined;
}

/** The policy, the quarantine, the counters and the observers; see the module comment. */
export class OutcomeHook implements StepHook {
  readonly #halting: boolean;
  readonly #progress: ProjectorProgress;
  readonly #quarantine: QuarantineEntry[];
  readonly #stats: { -readonly [K in keyof ProjectorStats]: ProjectorStats[K] };
  readonly #audit: AuditTrail | undefined;
  readonly #reactors: ReactorObserver | undefined;
  readonly #tracing: TraceObserver | undefined;

  constructor(parts: OutcomeHookParts) {
    this.#halting = parts.policy === 'halt';
    this.#progress = parts.progress;
    this.#quarantine = [...(parts.quarantine ?? [])];
    this.#stats = { applied: 0, noOps: 0, conflicts: 0, invalid: 0, alreadyApplied: 0 };
    if (parts.stats !== undefined) Object.assign(this.#stats, parts.stats);
    this.#audit = parts.audit;
    this.#reactors = parts.reactors;
    this.#tracing = parts.tracing;
  }

  /** Quarantined records, in the order met (a copy). */
  quarantined(): readonly QuarantineEntry[] {
    return [...this.#quarantine];
  }

  /** The counters as they stand (a copy). */
  stats(): ProjectorStats {
    return { ...this.#stats };
  }

  /** A record at or below the checkpoint: counted, and passed over. */
  passedOver(): Result<ApplyResult, Halted> {
    this.#stats.alreadyApplied += 1;
    return ALREADY_APPLIED;
  }

  /** A record past the checkpoint is about to be projected. */
  recordStarting(): void {
    this.#tracing?.recordStarting();
  }

  /**
   * Settles what a record past the checkpoint came to: the checkpoint moves to it unless it
   * halted (or `advance` is false: a bad line sharing its position with the next entry), then
   * the reactors, tracing and the counters hear of it.
   */
  recorded(
    record: RecordContext,
    outcome: StepOutcome,
    advance: boolean,
  ): Result<ApplyResult, Halted> {
    if (outcome === 'halted') {
      // Resumed from the event it stopped at, not from the record's first.
      if (record.count > 1) this.#progress.haltedWithin(record);
      this.#reactors?.recordDone(record, true);
      const halted = haltedAt(record.position, record.line, record.reason as QuarantineReason);
      this.#tracing?.recorded(record, outcome, halted);
      return err(halted);
    }
    if (advance) this.#progress.advance(record.position);
    this.#reactors?.recordDone(record, false);
    this.#tracing?.recorded(record, outcome, undefined);
    if (outcome === 'applied') {
      this.#stats.applied += 1;
      return APPLIED;
    }
    if (outcome === 'no-op') {
      this.#stats.noOps += 1;
      return NO_OP;
    }
    return QUARANTINED;
  }

  /** For the step. */
  eventApplying(record: RecordContext): void {
    this.#reactors?.eventApplying(record);
  }

  /** For the step: an applied or no-op event goes in the audit trail (a conflict once set aside). */
  eventFolded(record: RecordContext, outcome: Outcome | Conflict): void {
    if (typeof outcome !== 'object' && this.#audit !== undefined) {
      const { event, position, receivedAt, by } = record;
      if (event !== undefined) this.#audit.record(event, position, receivedAt, outcome, by);
    }
    this.#reactors?.eventFolded(record, outcome);
  }

  /** For the step. */
  observing(record: RecordContext): void {
    this.#reactors?.observing(record);
  }

  /** For the step: a merged observation goes in the audit trail, a repair to the reactors. */
  observed(record: RecordContext, outcome: Outcome): void {
    this.#auditObservation(record, outcome);
    this.#reactors?.observed(outcome);
  }

  /** For the step (and a bad line): quarantined under `skip`, halted on under `halt`. */
  setAside(record: RecordContext, reason: QuarantineReason): boolean {
    if (this.#halting) return false;
    const { position, line } = record;
    this.#quarantine.push(
      Object.freeze({ position, line, raw: previewRaw(record.rawText()), reason }),
    );
    if (reason.kind !== 'conflict') {
      this.#stats.invalid += 1;
      return true;
    }
    this.#stats.conflicts += 1;
    // A halted position is processed again on resume: only a final conflict is audited.
    const kind = reason.conflict.kind;
    if (record.observed !== undefined) this.#auditObservation(record, kind);
    else if (record.event !== undefined) {
      this.#audit?.record(record.event, position, record.receivedAt, kind, record.by);
    }
    return true;
  }

  #auditObservation(record: RecordContext, outcome: Outcome | Conflict['kind']): void {
    const { signRequestId, differences } = record.observed as ObservedRequest;
    this.#audit?.recordObservation(
      signRequestId,
      record.position,
      record.receivedAt,
      outcome,
      differences,
    );
  }
}
