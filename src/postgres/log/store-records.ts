/**
 * Stores items in one statement and reports, per item, where it is: its
 * new position, or the position of the event its delivery id already names
 * (stored before, or earlier in the same items).
 */
import { err, ok, type Result } from 'neverthrow';
import type { AppendOutcome } from '../../engine/event-log.js';
import { databaseError, type PostgresError } from '../postgres-error.js';
import type { SchemaName } from '../schema-name.js';
import { sql } from '../sql/sql.js';
import { queryPrepared, type SqlQueryable } from '../sql-client.js';
import { eventColumns, insertEventsSql, type StoredItem } from './event-rows.js';

interface InsertedRow {
  readonly position: string;
  readonly delivery_id: string | null;
}

/** The positions of those of the delivery `ids` that the events table holds. */
export const storedPositions = async (
  db: SqlQueryable,
  schema: SchemaName,
  ids: readonly string[],
): Promise<Map<string, number>> => {
  if (ids.length === 0) return new Map();
  const select = sql`SELECT position, delivery_id FROM ${sql.id(schema, 'events')}
                      WHERE delivery_id = ANY(${ids}::text[])`;
  const found = await db.query<{ position: string; delivery_id: string }>(
    select.text,
    select.values,
  );
  return new Map(found.rows.map((row) => [row.delivery_id, Number(row.position)]));
};

/**
 * Inserts `items` in order (duplicates skipped) and returns one outcome per
 * item. `ledgerVersion` is the version of the erasure ledger the items were
 * erased with (see erased-appends.ts): a `database` error of code
 * `LEDGER_CHANGED` when it is not the stored one any more.
 */
export const storeRecords = async (
  db: SqlQueryable,
  schema: SchemaName,
  items: readonly StoredItem[],
  ledgerVersion: number,
): Promise<Result<AppendOutcome[], PostgresError>> => {
  let inserted: InsertedRow[];
  let earlier = new Map<string, number>();
  try {
    const insert = insertEventsSql(schema, eventColumns(items), ledgerVersion);
    inserted = (await queryPrepared<InsertedRow>(db, insert.text, insert.values)).rows;
    const insertedIds = new Set(inserted.map((row) => row.delivery_id));
    const missing = items.flatMap((item) =>
      item.deliveryId !== undefined && !insertedIds.has(item.deliveryId) ? [item.deliveryId] : [],
    );
    earlier = await storedPositions(db, schema, missing);
  } catch (cause) {
    return err(databaseError(cause, `appending to ${schema}.events`));
  }
  // Identity values follow the ORDER BY of the insert: item order.
  inserted.sort((a, b) => Number(a.position) - Number(b.position));
  const outcomes: AppendOutcome[] = [];
  const positionOf = new Map<string, number>();
  let next = 0;
  for (const item of items) {
    const id = item.deliveryId;
    const known = id === undefined ? undefined : (positionOf.get(id) ?? earlier.get(id));
    if (known !== undefined) {
      outcomes.push({ kind: 'duplicate', position: known });
      continue;
    }
    const row = inserted[next];
    next += 1;
    if (row === undefined || (row.delivery_id ?? undefined) !== id) {
      return err({
        kind: 'database',
        code: undefined,
        message: `appending to ${schema}.events: the rows returned do not match the items sent`,
      });
    }
    const position = Number(row.position);
    if (id !== undefined) positionOf.set(id, position);
    outcomes.push({ kind: 'appended', position, receivedAt: item.receivedAt ?? '' });
  }
  return ok(outcomes);
};
