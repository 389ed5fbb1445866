/**
 * The `erasures` table (schema version 6) read and written as the core's
 * `ErasureLedger`: one row per ledger entry, the entry itself as `jsonb`
 * (ids, pseudonym, counts: never a name).
 */
import {
  decodeErasureEntry,
  type ErasureEntry,
  ErasureLedger,
} from '../../core/privacy/erasure-ledger.js';
import type { SchemaName } from '../schema-name.js';
import { send } from '../sql/send.js';
import { sql } from '../sql/sql.js';
import type { SqlQueryable } from '../sql-client.js';
import { readNameKeyRow } from './erasure-key-rows.js';

/** The ledger as stored now, and its version (its number of rows: every forget adds two). */
export interface StoredLedger {
  readonly ledger: ErasureLedger;
  readonly version: number;
}

/**
 * Reads the whole ledger, oldest first, with the key of its name hashes
 * (`erasure_key`). Throws on a database error, and on
 * a row that is not an entry (only signfold writes the table: a wrong row
 * was written around it, and nothing is erased on its word).
 */
export const readLedgerRows = async (
  db: SqlQueryable,
  schema: SchemaName,
): Promise<StoredLedger> => {
  const { rows } = await send<{ id: string; entry: unknown }>(
    db,
    sql`SELECT id, entry FROM ${sql.id(schema, 'erasures')} ORDER BY id`,
  );
  const entries: ErasureEntry[] = [];
  for (const row of rows) {
    const decoded = decodeErasureEntry(row.entry);
    if (decoded.isErr()) {
      throw new Error(`${schema}.erasures row ${row.id} is not an erasure entry: ${decoded.error}`);
    }
    entries.push(decoded.value);
  }
  return {
    ledger: new ErasureLedger(entries, await readNameKeyRow(db, schema)),
    version: rows.length,
  };
};

/** Appends `entry` to the ledger, in the caller's transaction (the row's `txid` is that transaction). */
export const writeErasureEntry = async (
  db: SqlQueryable,
  schema: SchemaName,
  entry: ErasureEntry,
): Promise<void> => {
  await send(
    db,
    sql`INSERT INTO ${sql.id(schema, 'erasures')} (erasure, state, at, entry)
        VALUES (${entry.erasure}, ${entry.state}, ${entry.at}, ${JSON.stringify(entry)}::jsonb)`,
  );
};
