/**
 * The PostgreSQL read model from what a user names: a URL (a pool of its
 * own is opened, and ended with the model) or a pool they own (left open).
 */
import type { ReadModel } from '../../engine/read-model.js';
import { schemaName } from '../schema-name.js';
import type { SqlPool } from '../sql-client.js';
import { postgresReadModel } from './postgres-read-model.js';
import { openReadPool } from './read-pool.js';

/**
 * The read model on `database` for the tables of `schema` (default
 * `signfold`). Rejects on a malformed schema name or a missing `pg`; a
 * database that cannot be reached is found at the first read (a 503).
 */
export const openPostgresReadModel = async (
  database: string | SqlPool,
  schema?: string,
): Promise<ReadModel> => {
  const checked = schemaName(schema);
  if (checked.isErr()) throw new TypeError(checked.error.message);
  if (typeof database !== 'string') return postgresReadModel(database, checked.value);
  const pool = await openReadPool(database);
  const model = postgresReadModel(pool, checked.value);
  return { ...model, close: () => pool.end().catch(() => undefined) };
};
