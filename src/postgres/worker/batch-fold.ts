/**
 * The fold of a partition batch, apart from every read and write: the
 * records read, folded by the core projector onto the records loaded for
 * them, give the new state and what the batch counts and quarantines. No
 * I/O: what it needs is handed in, so it can be tested alone.
 */
import type { ProjectionState } from '../../core/projections/projection-state.js';
import type { Change } from '../../core/reactors/reactor-types.js';
import type { Upcaster } from '../../core/upcasters/upcaster-types.js';
import type { LogRecord } from '../../engine/event-log.js';
import { createProjector } from '../../engine/projector.js';
import type { ProjectorStats } from '../../engine/projector-types.js';
import type { QuarantineEntry } from '../../engine/quarantine.js';
import type { Tracing } from '../../engine/tracing.js';
import { FirstSeen } from '../tables/first-seen.js';
import { minus } from './batch-keys.js';

/** What a fold starts from. */
export interface FoldInput {
  readonly partition: number;
  /** The checkpoint the batch starts after. */
  readonly from: number;
  /** The records read, in position order. */
  readonly records: readonly LogRecord[];
  /**
   * Whether the partition counts each record (index for index): a template
   * event changes every partition's templates, but only partition 0 counts
   * and quarantines it, so it is counted once.
   */
  readonly counted: readonly boolean[];
  /** Every existing record the batch could touch (see `loadRecords`). */
  readonly before: ProjectionState;
  readonly strict: boolean;
  readonly upcasters: readonly Upcaster[];
  /** Told each applied change (the reactors of the batch). */
  readonly onApplied?: ((change: Change) => void) | undefined;
  /** The spans of the records folded. */
  readonly tracing?: Tracing | undefined;
}

/** What a batch folded. */
export interface FoldedBatch {
  readonly state: ProjectionState;
  /** Where each record the batch created was first seen. */
  readonly firstSeen: FirstSeen;
  /** The counters of the records the partition counts. */
  readonly stats: ProjectorStats;
  /** The quarantine entries of the records the partition counts. */
  readonly quarantine: readonly QuarantineEntry[];
  /** How many records the partition counts. */
  readonly processed: number;
}

const ZERO: ProjectorStats = { applied: 0, noOps: 0, conflicts: 0, invalid: 0, alreadyApplied: 0 };

/** Folds a batch's records onto the records loaded for them. */
export const foldBatch = (input: FoldInput): FoldedBatch => {
  const projector = createProjector(
    {
      policy: 'skip',
      audit: false,
      strict: input.strict,
      upcasters: input.upcasters,
      ...(input.onApplied === undefined ? {} : { onApplied: input.onApplied }),
      ...(input.tracing === undefined ? {} : { tracing: input.tracing }),
    },
    { state: input.before, checkpoint: input.from, stats: ZERO },
  );
  let uncounted = ZERO;
  const uncountedPositions = new Set<number>();
  const firstSeen = new FirstSeen(input.before);
  input.records.forEach((record, i) => {
    if (input.counted[i] !== false) {
      firstSeen.note(projector, record, projector.applyRecord(record));
      return;
    }
    const earlier = projector.stats();
    firstSeen.note(projector, record, projector.applyRecord(record));
    uncounted = minus(uncounted, minus(earlier, projector.stats()));
    uncountedPositions.add(record.position);
  });
  return {
    state: projector.state(),
    firstSeen,
    stats: minus(projector.stats(), uncounted),
    quarantine: projector.quarantine().filter((q) => !uncountedPositions.has(q.position)),
    processed: input.records.length - uncountedPositions.size,
  };
};
