/**
 * Reads a migrated schema in one snapshot (a read-only, repeatable-read
 * transaction), so a worker committing meanwhile is seen whole or not at all.
 * Shared by every reader of the tables as a whole.
 */
import { err, ok, type Result } from 'neverthrow';
import { checkSchema, type SchemaOptions } from './migrate.js';
import { databaseError, type PostgresError } from './postgres-error.js';
import { type SchemaName, schemaName } from './schema-name.js';
import { connect, type SqlPool, type SqlQueryable } from './sql-client.js';

/**
 * Checks the schema's name and version, then runs `read` in a snapshot. A
 * failure is a `database` error "while reading `what` of SCHEMA".
 */
export const readSnapshot = async <T>(
  pool: SqlPool,
  options: SchemaOptions,
  what: string,
  read: (db: SqlQueryable, schema: SchemaName) => Promise<T>,
): Promise<Result<T, PostgresError>> => {
  const named = schemaName(options.schema);
  if (named.isErr()) return err(named.error);
  const schema = named.value;
  const checked = await checkSchema(pool, schema);
  if (checked.isErr()) return err(checked.error);
  const connected = await connect(pool);
  if (connected.isErr()) return err(connected.error);
  const db = connected.value;
  try {
    await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const value = await read(db, schema);
    await db.query('COMMIT');
    return ok(value);
  } catch (cause) {
    await db.query('ROLLBACK').catch(() => undefined);
    return err(databaseError(cause, `reading ${what} of ${schema}`));
  } finally {
    db.release();
  }
};
