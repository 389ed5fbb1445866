/**
 * A worker's projection tables can be swapped under it: `pg rebuild
 * --switch` moves new tables in under the same names, which would silently
 * resolve to them. So a worker pins the identity (OID) of its `partitions`
 * table when it starts; every lease statement also requires it, and a worker
 * that finds it changed stops instead of projecting into tables built under
 * other rules. (The rebuild's own workers, whose schema the switch drops,
 * are told by `pg rebuild`, which knows what it works on.)
 */
import type { PostgresError } from '../postgres-error.js';
import type { SchemaName } from '../schema-name.js';
import type { SqlQueryable } from '../sql-client.js';

/** The OID of `schema.partitions` now, as text; `undefined` when the table does not exist. */
export const partitionsTableOid = async (
  db: SqlQueryable,
  schema: SchemaName,
): Promise<string | undefined> => {
  const { rows } = await db.query<{ oid: string | null }>(
    'SELECT to_regclass($1)::oid::text AS oid',
    [`${schema}.partitions`],
  );
  return rows[0]?.oid ?? undefined;
};

/** Thrown inside a worker once its tables were replaced; the worker turns it into a `tables-replaced` error. */
export class TablesReplacedError extends Error {
  readonly schema: SchemaName;

  constructor(schema: SchemaName) {
    super(
      `the projection tables of schema ${schema} were replaced by pg rebuild --switch; this worker stops (restart it with the new version)`,
    );
    this.name = 'TablesReplacedError';
    this.schema = schema;
  }
}

/**
 * Throws {@link TablesReplacedError} when `schema.partitions` is another
 * table than the one of OID `oid`. A table that is gone is no replacement (a
 * schema dropped by hand): the statements that need it fail with their error.
 */
export const checkTablesKept = async (
  db: SqlQueryable,
  schema: SchemaName,
  oid: string,
): Promise<void> => {
  const now = await partitionsTableOid(db, schema);
  if (now !== undefined && now !== oid) throw new TablesReplacedError(schema);
};

/** The `Result` error of a worker whose tables were replaced. */
export const tablesReplaced = (error: TablesReplacedError): PostgresError => ({
  kind: 'tables-replaced',
  schema: error.schema,
  message: error.message,
});
