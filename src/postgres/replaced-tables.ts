/**
 * A worker's projection tables can be swapped under it (`pg rebuild
 * --switch` moves new tables in under the same names) or dropped (the
 * rebuild schema, once switched). Names would silently resolve to the new
 * tables, so a worker pins the identity (OID) of its `partitions` table when
 * it starts; every lease statement also requires it, and a worker that finds
 * it changed stops instead of projecting into tables built under other rules.
 */
import type { PostgresError } from './postgres-error.js';
import type { SchemaName } from './schema-name.js';
import type { SqlQueryable } from './sql-client.js';

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

/** Throws {@link TablesReplacedError} when `schema.partitions` is no longer the table of OID `oid`. */
export const checkTablesKept = async (
  db: SqlQueryable,
  schema: SchemaName,
  oid: string,
): Promise<void> => {
  if ((await partitionsTableOid(db, schema)) !== oid) throw new TablesReplacedError(schema);
};

/** The `Result` error of a worker whose tables were replaced. */
export const tablesReplaced = (error: TablesReplacedError): PostgresError => ({
  kind: 'tables-replaced',
  schema: error.schema,
  message: error.message,
});
