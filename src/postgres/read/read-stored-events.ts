/**
 * The rows of the events table as stored (body, delivery id, time, why a
 * line is bad, why an operator skipped it), for `signfold pg events`, which
 * writes them out as a log file, and `pg export`, which shows a quarantined
 * record's text as that file holds it.
 */
import type { Result } from 'neverthrow';
import { type EventRow, selectEventsAtSql, selectEventsSql } from '../log/event-rows.js';
import type { PostgresError } from '../postgres-error.js';
import type { SchemaOptions } from '../schema/migrate.js';
import type { SqlPool } from '../sql-client.js';
import { readSnapshot } from './read-snapshot.js';

export type { EventRow } from '../log/event-rows.js';

/** Rows per round trip: a few MB of bodies at most, whatever the store's size. */
const BATCH_ROWS = 2000;

/**
 * Hands every stored row to `onRows`, in position order and batches, all
 * read in one snapshot: rows a `forget` rewrites meanwhile are seen all
 * before or all after. `onRows` may wait (for its output to drain).
 */
export const readStoredEvents = (
  pool: SqlPool,
  options: SchemaOptions,
  onRows: (rows: readonly EventRow[]) => Promise<void> | void,
): Promise<Result<number, PostgresError>> =>
  readSnapshot(pool, options, 'the stored events', async (db, schema) => {
    let from = 1;
    let count = 0;
    for (;;) {
      const read = selectEventsSql(schema, from, BATCH_ROWS);
      const { rows } = await db.query<EventRow>(read.text, read.values);
      if (rows.length === 0) return count;
      count += rows.length;
      await onRows(rows);
      from = Number(rows[rows.length - 1]?.position) + 1;
    }
  });

/** The stored rows at `positions` (those that exist), in position order, in one snapshot. */
export const readEventRowsAt = (
  pool: SqlPool,
  options: SchemaOptions,
  positions: readonly number[],
): Promise<Result<EventRow[], PostgresError>> =>
  readSnapshot(pool, options, 'the stored events', async (db, schema) => {
    if (positions.length === 0) return [];
    const read = selectEventsAtSql(schema, positions);
    const { rows } = await db.query<EventRow>(read.text, read.values);
    return rows;
  });
