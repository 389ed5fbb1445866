/**
 * The key of a PostgreSQL store's keyed name hashes, the one row of
 * `erasure_key` (migration 7): read with the ledger, made by the first
 * forget that types a name.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { NameKey } from '../../core/privacy/name-key.js';
import type { SchemaName } from '../schema-name.js';
import { send } from '../sql/send.js';
import { sql } from '../sql/sql.js';
import type { SqlQueryable } from '../sql-client.js';

/**
 * HMAC-SHA-256 of the name's UTF-16 code units under `key` (UTF-16 keeps
 * two names that differ only in a lone surrogate apart; UTF-8 would not).
 */
const hmacNameKey =
  (key: Buffer): NameKey =>
  (name) =>
    createHmac('sha256', key).update(Buffer.from(name, 'utf16le')).digest('hex');

/** The store's keyed hash, `undefined` while no forget has typed a name. Throws on a database error. */
export const readNameKeyRow = async (
  db: SqlQueryable,
  schema: SchemaName,
): Promise<NameKey | undefined> => {
  const { rows } = await send<{ key: Buffer }>(
    db,
    sql`SELECT key FROM ${sql.id(schema, 'erasure_key')}`,
  );
  const key = rows[0]?.key;
  return key === undefined ? undefined : hmacNameKey(key);
};

/**
 * The store's keyed hash, its key made first when there is none, in the
 * caller's transaction (two forgets that make one at once: the second finds
 * the first's row once it commits, or gives way and is tried again).
 */
export const ensureNameKeyRow = async (db: SqlQueryable, schema: SchemaName): Promise<NameKey> => {
  await send(
    db,
    sql`INSERT INTO ${sql.id(schema, 'erasure_key')} (key) VALUES (${randomBytes(32)})
        ON CONFLICT (one) DO NOTHING`,
  );
  const key = await readNameKeyRow(db, schema);
  if (key === undefined) throw new Error(`${schema}.erasure_key has no key after it was made`);
  return key;
};
