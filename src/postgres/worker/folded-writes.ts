/**
 * The step a batch (partition-batch.ts) and a pass (partition-pass.ts) share
 * between their reads and their fenced write: fold the records read onto the
 * rows loaded for them (batch-fold.ts), and turn the result into what the
 * write carries.
 */
import type { EventRow } from '../log/event-rows.js';
import { EVERY_PARTITION } from '../schema/migration-partitions.js';
import type { SchemaName } from '../schema-name.js';
import { changeStatements, type TemplateRows } from '../tables/projection-tables.js';
import { quarantineStatement } from '../tables/quarantine-table.js';
import { type FoldInput, foldBatch } from './batch-fold.js';
import type { BatchWrites } from './batch-write.js';

/** What the fold and the write need of an event row read for a partition. */
type ReadRow = Pick<EventRow, 'position' | 'skipped'> & { readonly partition: number };

/** A batch's writes (without the lock and the reactions, which are its caller's), and the records it counted. */
export interface FoldedWrites extends Omit<BatchWrites, 'lock' | 'reacting'> {
  readonly processed: number;
}

/**
 * Folds `fold.records` (read as `rows`) and gives the changed rows of
 * `templateRows`' tables and the others, the quarantine, the counters and
 * the positions read as not skipped; `to` is the first position of a record
 * first seen without one of its own.
 */
export const foldedWrites = (
  schema: SchemaName,
  fold: Omit<FoldInput, 'counted'>,
  rows: readonly ReadRow[],
  templateRows: TemplateRows,
  to: number,
): FoldedWrites => {
  const { partition, before } = fold;
  // A template event is stored once for every partition: only partition 0 counts it.
  const counted = rows.map((row) => partition === 0 || row.partition !== EVERY_PARTITION);
  const { state, firstSeen, quarantine, stats, processed } = foldBatch({ ...fold, counted });
  const writes = changeStatements(schema, before, state, templateRows, firstSeen, to);
  const quarantined = quarantineStatement(schema, quarantine);
  if (quarantined !== undefined) writes.push(quarantined);
  // An operator may skip one of these events before the write (see batch-write.ts).
  const unskipped = rows.filter((row) => row.skipped === null).map((row) => Number(row.position));
  return { writes, stats, unskipped, processed };
};
