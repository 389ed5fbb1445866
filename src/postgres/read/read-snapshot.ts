/**
 * Reads a migrated schema in one snapshot (a read-only, repeatable-read
 * transaction), so a worker committing meanwhile is seen whole or not at all.
 * Shared by every reader of the tables as a whole.
 */
import { err, ok, type Result, safeTry } from 'neverthrow';
import { databaseError, type PostgresError } from '../postgres-error.js';
import { checkSchema, type SchemaOptions } from '../schema/migrate.js';
import { type SchemaName, schemaName } from '../schema-name.js';
import { connect, rollBack, type SqlPool, type SqlQueryable } from '../sql-client.js';

/**
 * Checks the schema's name and version, then runs `read` in a snapshot. A
 * failure is a `database` error "while reading `what` of SCHEMA".
 */
export const readSnapshot = async <T>(
  pool: SqlPool,
  options: SchemaOptions,
  what: string,
  read: (db: SqlQueryable, schema: SchemaName) => Promise<T>,
): Promise<Result<T, PostgresError>> =>
  safeTry(async function* () {
    const schema = yield* schemaName(options.schema);
    yield* await checkSchema(pool, schema);
    const db = yield* await connect(pool);
    // No yield* in this try: safeTry drops the generator at an Err, so `finally` would not run.
    let broken: Error | true | undefined;
    try {
      await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const value = await read(db, schema);
      await db.query('COMMIT');
      return ok(value);
    } catch (cause) {
      broken = await rollBack(db, cause);
      return err(databaseError(cause, `reading ${what} of ${schema}`));
    } finally {
      db.release(broken);
    }
  });
