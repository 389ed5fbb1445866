import type { Result } from 'neverthrow';
import type { ProjectionState } from '../../core/projections/projection-state.js';
import type { QuarantineReason } from '../../engine/quarantine.js';
import type { PostgresError } from '../postgres-error.js';
import type { SchemaOptions } from '../schema/migrate.js';
import { send } from '../sql/send.js';
import { sql } from '../sql/sql.js';
import type { SqlPool } from '../sql-client.js';
import { readAllRecords } from '../tables/projection-tables.js';
import { PROJECTION_NAME } from '../worker/projection-worker.js';
import { readSnapshot } from './read-snapshot.js';

/** What the projection tables hold, read back whole. */
export interface StoredProjections {
  /** Every record, each collection in first-seen order as a replay lists it. */
  readonly state: ProjectionState;
  /** The last position projected (0 before any). */
  readonly checkpoint: number;
  /** The quarantine table, in position order. */
  readonly quarantine: readonly StoredQuarantineEntry[];
}

/** A row of the quarantine table. */
export interface StoredQuarantineEntry {
  readonly position: number;
  readonly reason: QuarantineReason['kind'];
  readonly message: string;
  /** The start of the stored event (at most 200 characters). */
  readonly raw: string;
  /** The record's line: its position, or the line of the file it was imported from. */
  readonly line: number | null;
  /** The structured part of the reason as JSON text (the decode error, the conflict); null for a bad line. */
  readonly detail: string | null;
}

/**
 * Reads the projection tables into memory: for tests, exports and small
 * databases (applications should query the tables with SQL instead). Reads
 * in one snapshot, so a worker committing meanwhile is seen whole or not at all.
 */
export const readProjections = (
  pool: SqlPool,
  options: SchemaOptions = {},
): Promise<Result<StoredProjections, PostgresError>> =>
  readSnapshot(pool, options, 'the projections', async (db, schema) => {
    const state = await readAllRecords(db, schema);
    const checkpoint = await send<{ position: string }>(
      db,
      sql`SELECT position FROM ${sql.id(schema, 'checkpoints')} WHERE projection = ${PROJECTION_NAME}`,
    );
    const quarantine = await send<{
      position: string;
      reason: QuarantineReason['kind'];
      message: string;
      raw: string;
      line: string | null;
      detail: string | null;
    }>(
      db,
      sql`SELECT position, reason, message, raw, line, detail FROM ${sql.id(schema, 'quarantine')}
           ORDER BY position`,
    );
    return {
      state,
      checkpoint: Number(checkpoint.rows[0]?.position ?? 0),
      quarantine: quarantine.rows.map((row) => ({
        ...row,
        position: Number(row.position),
        line: row.line === null ? null : Number(row.line),
      })),
    };
  });
