/**
 * Folding one partition's rows with the core projector, apart from reading
 * and writing them: a batch of one partition (partition-batch.ts) and a pass
 * over several (partitions-pass.ts) fold each partition the same way.
 */
import type { ProjectionState } from '../core/projections/projection-state.js';
import type { LogRecord } from '../engine/event-log.js';
import { createProjector } from '../engine/projector.js';
import type { ProjectorStats } from '../engine/projector-types.js';
import type { QuarantineEntry } from '../engine/quarantine.js';
import type { BatchContext } from './batch-context.js';
import { minus } from './batch-keys.js';
import type { BatchTrace } from './batch-trace.js';
import type { EventRow } from './event-rows.js';
import { EVERY_PARTITION } from './migration-partitions.js';
import type { ReactorBatch } from './reactors/reactor-batch.js';

/** An event row as the partition reads return it: with the partition it was stored in. */
export type PartitionEventRow = EventRow & { readonly partition: number };

/** What folding a partition's rows gave. */
export interface PartitionFold {
  /** The records as loaded, before the fold. */
  readonly before: ProjectionState;
  /** The records after the fold (unchanged records are the very objects of `before`). */
  readonly after: ProjectionState;
  /** What the partition counts: template events only in partition 0, so each is counted once. */
  readonly stats: ProjectorStats;
  /** The quarantine entries the partition counts (same rule). */
  readonly quarantine: readonly QuarantineEntry[];
  /** Records the partition counts. */
  readonly processed: number;
}

const ZERO: ProjectorStats = { applied: 0, noOps: 0, conflicts: 0, invalid: 0, alreadyApplied: 0 };

/**
 * Folds `records` (those of `rows`, in position order, after checkpoint
 * `from`) over `before`. Template events change every partition's templates,
 * but only partition 0 counts and quarantines them.
 */
export const foldPartition = (
  context: BatchContext,
  partition: number,
  from: number,
  rows: readonly PartitionEventRow[],
  records: readonly LogRecord[],
  before: ProjectionState,
  reacting?: ReactorBatch,
  trace?: BatchTrace,
): PartitionFold => {
  const projector = createProjector(
    {
      policy: 'skip',
      audit: false,
      strict: context.strict,
      upcasters: context.upcasters ?? [],
      ...(reacting === undefined ? {} : { onApplied: reacting.onApplied }),
      ...(trace === undefined ? {} : { tracing: trace.tracing }),
    },
    { state: before, checkpoint: from, stats: ZERO },
  );
  let uncounted = ZERO;
  const uncountedPositions = new Set<number>();
  records.forEach((record, i) => {
    if (partition === 0 || rows[i]?.partition !== EVERY_PARTITION) {
      projector.applyRecord(record);
      return;
    }
    const earlier = projector.stats();
    projector.applyRecord(record);
    uncounted = minus(uncounted, minus(earlier, projector.stats()));
    uncountedPositions.add(record.position);
  });
  return {
    before,
    after: projector.state(),
    stats: minus(projector.stats(), uncounted),
    quarantine: projector.quarantine().filter((q) => !uncountedPositions.has(q.position)),
    processed: records.length - uncountedPositions.size,
  };
};
