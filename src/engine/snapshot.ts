import { freeze } from 'immer';
import { err, ok, type Result } from 'neverthrow';
import type { ParticipantId, SignRequestId, TemplateId } from '../core/ids.js';
import type { ProjectionState } from '../core/projections/projection-state.js';
import { markPublished } from '../core/projections/published-states.js';
import type {
  ParticipantView,
  SignRequestView,
  TemplateView,
} from '../core/projections/records.js';
import { AuditTrail, type AuditTrailData } from './audit-trail.js';
import {
  describeFold,
  FOLDED_BEFORE_RECORDING,
  type FoldedWith,
  foldDifference,
  foldedWithOf,
} from './folded-with.js';
import { createProjector, type Projector } from './projector.js';
import type { ProjectorOptions, ProjectorStats } from './projector-types.js';
import type { QuarantineEntry } from './quarantine.js';
import { snapshotContentProblem } from './snapshot-validation.js';

/** The snapshot format tag. */
export const SNAPSHOT_FORMAT = 'signfold.snapshot';
/**
 * The snapshot format version this build writes. Version 2 added the
 * checksum of the written document (see `encodeSnapshotDocument`); version 3
 * the views' `sentAt`, `viewedAt` and `lastEventAt`; version 4 what the fold
 * was made with (`foldedWith`). Versions 2 to 4 are read: a version-2
 * snapshot restores with those times `null`, and one of version 2 or 3 counts
 * as folded with these rules, lenient decoding and no upcasters. The outcome
 * times (`completedAt`, `signedAt`, …, `outcomeFrom`) came within version 4:
 * they are optional on read (`null` when absent), which older builds ignore,
 * so the version did not change for them.
 */
export const SNAPSHOT_VERSION = 4;

/** The oldest snapshot version this build still reads. */
export const OLDEST_READ_SNAPSHOT_VERSION = 2;

/** The member of a written snapshot document that holds its SHA-256 (never part of a value). */
export const SNAPSHOT_CHECKSUM_MEMBER = 'checksum';

/** A projector's state as a JSON-ready value: restore it, then replay only the tail. */
export interface Snapshot {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly version: typeof SNAPSHOT_VERSION;
  /** Last processed log position: replay resumes after it. */
  readonly checkpoint: number;
  readonly templates: readonly TemplateView[];
  readonly signRequests: readonly SignRequestView[];
  readonly participants: readonly ParticipantView[];
  readonly audit: AuditTrailData | null;
  readonly quarantine: readonly QuarantineEntry[];
  /** The projector's counters, so a restored projector reports the whole log. Optional on read. */
  readonly stats: ProjectorStats;
  /**
   * What the fold was made with: a projector that folds otherwise refuses
   * the snapshot (`snapshot-stale`) instead of keeping what other rules made.
   */
  readonly foldedWith: FoldedWith;
}

/** Why a snapshot cannot be read or restored. */
export interface SnapshotError {
  /**
   * `snapshot-checksum`: the document's bytes are not those that were
   * written. `snapshot-stale`: it was folded with other fold rules, decoding
   * mode or upcasters than the projector it would restore.
   */
  readonly kind: 'snapshot-invalid' | 'snapshot-version' | 'snapshot-checksum' | 'snapshot-stale';
  readonly message: string;
}

/**
 * Captures a projector (state, checkpoint, audit trails, quarantine) as a {@link Snapshot}.
 *
 * @example
 * ```ts
 * import { createProjector, restoreProjector, takeSnapshot } from 'signfold';
 * import { createMemoryEventLog } from 'signfold/file';
 * import { events } from 'signfold/testing';
 *
 * const log = createMemoryEventLog();
 * await log.append(events.signRequestSent());
 * const projector = createProjector();
 * await projector.replay(log);
 * const snapshot = takeSnapshot(projector);
 * await log.append(events.signRequestCompleted());
 * const restored = restoreProjector(snapshot);
 * if (restored.isOk()) {
 *   const projected = restored.value;
 *   await projected.replay(log); // only the records after the snapshot's checkpoint
 *   console.log(snapshot.checkpoint, projected.checkpoint, projected.stats().applied); // 1 2 2
 * }
 * ```
 */
export const takeSnapshot = (projector: Projector): Snapshot => {
  const state = projector.state();
  const participants: ParticipantView[] = [];
  for (const ofRequest of state.participants.values()) participants.push(...ofRequest.values());
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    checkpoint: projector.checkpoint,
    templates: [...state.templates.values()],
    signRequests: [...state.signRequests.values()],
    participants,
    audit: projector.auditTrail()?.toData() ?? null,
    quarantine: projector.quarantine(),
    stats: projector.stats(),
    foldedWith: projector.foldedWith(),
  };
};

const invalid = (message: string): SnapshotError => ({ kind: 'snapshot-invalid', message });

/**
 * Refuses a value that is not a snapshot object of the version this build
 * reads. Shared by the document decoder and `restoreProjector`, so a file and
 * a value are refused with the same words.
 */
export const snapshotHeaderProblem = (value: unknown): SnapshotError | undefined => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid('a snapshot must be a JSON object');
  }
  const s = value as Record<string, unknown>;
  if (s.format !== SNAPSHOT_FORMAT) {
    return invalid(`not a signfold snapshot (format is ${JSON.stringify(s.format)})`);
  }
  if (s.version === 1) {
    // Version 1 had no checksum: its bytes cannot be trusted, and a snapshot is only a cache.
    return {
      kind: 'snapshot-version',
      message: `snapshot format version 1 has no checksum and is no longer read (this build reads version ${SNAPSHOT_VERSION}); replay the log from the start and take a new snapshot`,
    };
  }
  const version = s.version;
  if (
    typeof version !== 'number' ||
    !Number.isInteger(version) ||
    version < OLDEST_READ_SNAPSHOT_VERSION ||
    version > SNAPSHOT_VERSION
  ) {
    return {
      kind: 'snapshot-version',
      message: `snapshot format version ${JSON.stringify(s.version)} is not supported (this build reads versions ${OLDEST_READ_SNAPSHOT_VERSION} to ${SNAPSHOT_VERSION})`,
    };
  }
  return undefined;
};

const stateFrom = (s: Record<string, unknown>): ProjectionState => {
  const templates = new Map<TemplateId, TemplateView>();
  for (const t of s.templates as TemplateView[]) templates.set(t.id, freeze({ ...t }, true));
  const signRequests = new Map<SignRequestId, SignRequestView>();
  // Times a snapshot predates (all of them in version 2, the outcome times before
  // signfold stamped them) restore as `null`, as for a bare line.
  for (const r of s.signRequests as SignRequestView[]) {
    const times = {
      sentAt: r.sentAt ?? null,
      completedAt: r.completedAt ?? null,
      declinedAt: r.declinedAt ?? null,
      deletedAt: r.deletedAt ?? null,
      outcomeFrom: r.outcomeFrom ?? null,
      lastEventAt: r.lastEventAt ?? null,
    };
    signRequests.set(r.id, freeze({ ...r, ...times }, true));
  }
  const participants = new Map<SignRequestId, Map<ParticipantId, ParticipantView>>();
  for (const p of s.participants as ParticipantView[]) {
    let ofRequest = participants.get(p.signRequestId);
    if (ofRequest === undefined) {
      ofRequest = new Map();
      participants.set(p.signRequestId, ofRequest);
    }
    const times = {
      sentAt: p.sentAt ?? null,
      viewedAt: p.viewedAt ?? null,
      signedAt: p.signedAt ?? null,
      declinedAt: p.declinedAt ?? null,
      outcomeFrom: p.outcomeFrom ?? null,
      lastEventAt: p.lastEventAt ?? null,
    };
    ofRequest.set(p.id, freeze({ ...p, ...times }, true));
  }
  for (const ofRequest of participants.values()) freeze(ofRequest);
  return markPublished(
    Object.freeze({
      templates: freeze(templates),
      signRequests: freeze(signRequests),
      participants: freeze(participants),
    }),
  );
};

/**
 * Rebuilds a projector from a snapshot value: one from `takeSnapshot`, or one
 * read (and checksum-verified) by `readSnapshotFile` / `decodeSnapshot`.
 * Refuses, with a clear error, anything that is not a snapshot of a version
 * it reads, and a parsed document that still carries its `checksum` member:
 * that value was parsed without being verified.
 *
 * @example
 * ```ts
 * import { restoreProjector } from 'signfold';
 *
 * const refused = restoreProjector({ format: 'something else' });
 * console.log(refused.isErr() && refused.error.kind); // snapshot-invalid
 * ```
 */
export const restoreProjector = (
  value: unknown,
  options?: ProjectorOptions,
): Result<Projector, SnapshotError> => {
  const header = snapshotHeaderProblem(value);
  if (header !== undefined) return err(header);
  const s = value as Record<string, unknown>;
  if (Object.hasOwn(s, SNAPSHOT_CHECKSUM_MEMBER)) {
    return err({
      kind: 'snapshot-checksum',
      message:
        'snapshot checksum not verified: read the document with readSnapshotFile or decodeSnapshot, not JSON.parse',
    });
  }
  if (typeof s.checkpoint !== 'number' || !Number.isSafeInteger(s.checkpoint) || s.checkpoint < 0) {
    return err(invalid('snapshot "checkpoint" must be a non-negative integer'));
  }
  const problem = snapshotContentProblem(s);
  if (problem !== undefined) return err(invalid(`snapshot ${problem}`));
  if (s.version === SNAPSHOT_VERSION && s.foldedWith === undefined) {
    return err(invalid('snapshot "foldedWith" is missing'));
  }
  const was = (s.foldedWith as FoldedWith | undefined) ?? FOLDED_BEFORE_RECORDING;
  const upcasters = Array.isArray(options?.upcasters) ? options.upcasters : [];
  const now = foldedWithOf(options?.strict ?? false, upcasters);
  const difference = foldDifference(was, now);
  if (difference !== undefined) {
    return err({
      kind: 'snapshot-stale',
      message: `snapshot was folded with ${difference}; this projector folds with ${describeFold(now)}: replay the log from the start (without the snapshot) and take a new one`,
    });
  }
  const auditData = s.audit as AuditTrailData | null;
  const keepAudit = options?.audit !== false;
  let state: ProjectionState;
  try {
    state = stateFrom(s);
  } catch (cause) {
    // Deep-freezing a record nested thousands of levels deep overflows the stack.
    const detail = cause instanceof Error ? cause.message : 'unreadable value';
    return err(invalid(`snapshot records could not be restored (${detail})`));
  }
  return ok(
    createProjector(options, {
      state,
      checkpoint: s.checkpoint,
      ...(keepAudit && auditData !== null ? { audit: AuditTrail.fromData(auditData) } : {}),
      quarantine: s.quarantine as QuarantineEntry[],
      ...(s.stats === undefined ? {} : { stats: s.stats as ProjectorStats }),
    }),
  );
};
