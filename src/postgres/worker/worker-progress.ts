/** Where a projection worker reports the projection stands, read off the `checkpoints` view. */
import type { ProjectorStats } from '../../engine/projector-types.js';
import type { SchemaName } from '../schema-name.js';
import { sendPrepared } from '../sql/send.js';
import { sql } from '../sql/sql.js';
import type { SqlPool } from '../sql-client.js';

/** Where the projection stands after a batch (over every partition). */
export interface WorkerProgress extends ProjectorStats {
  /** Every event up to this position is projected, in every partition (0 before any). */
  readonly checkpoint: number;
  /** Records processed by this call (0: nothing new). */
  readonly processed: number;
}

interface TotalsRow {
  readonly checkpoint: string | null;
  readonly applied: string | null;
  readonly no_ops: string | null;
  readonly conflicts: string | null;
  readonly invalid: string | null;
  readonly already_applied: string | null;
}

/** The overall checkpoint and counters, with `processed` the records of the call reporting them. */
export const readTotals = async (
  pool: SqlPool,
  schema: SchemaName,
  processed: number,
): Promise<WorkerProgress> => {
  // The checkpoints view defines the overall checkpoint and counters over the partitions.
  const { rows } = await sendPrepared<TotalsRow>(
    pool,
    sql`SELECT position AS checkpoint, applied, no_ops, conflicts, invalid, already_applied
          FROM ${sql.id(schema, 'checkpoints')}`,
  );
  const row = rows[0];
  return {
    checkpoint: Number(row?.checkpoint ?? 0),
    applied: Number(row?.applied ?? 0),
    noOps: Number(row?.no_ops ?? 0),
    conflicts: Number(row?.conflicts ?? 0),
    invalid: Number(row?.invalid ?? 0),
    alreadyApplied: Number(row?.already_applied ?? 0),
    processed,
  };
};
