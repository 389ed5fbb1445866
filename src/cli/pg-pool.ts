/**
 * The `pg` pool of the commands that use PostgreSQL (`pg …`, and `report` /
 * `inspect` with `--database`). Loads `pg` on use: it is an optional peer
 * dependency that the other commands never load.
 */
import type { SqlPool } from '../postgres/index.js';
import type { OptionTable } from './args.js';
import { CliError, usageError } from './cli-error.js';

/** The flags that name a database: `--database URL [--schema NAME]`. */
export const DATABASE_OPTIONS: OptionTable = {
  database: { type: 'string' },
  schema: { type: 'string' },
};

/** A pool the command ends when done. */
export type CliPool = SqlPool & { end(): Promise<void> };

/** `database` as a URL if it is a `postgres://` (or `postgresql://`) one; a usage error otherwise. */
export const checkDatabaseUrl = (database: string): URL => {
  let url: URL;
  try {
    url = new URL(database);
  } catch {
    throw usageError(
      `--database must be a URL such as postgres://user@host:5432/db (got '${database}')`,
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw usageError(`--database must be a postgres:// URL (got '${url.protocol}')`);
  }
  return url;
};

/**
 * Opens a pool on `database` (a `postgres://` URL; usage error otherwise).
 * `who` names the command in the message shown when `pg` is not installed.
 */
export const openPool = async (database: string, who = 'signfold pg'): Promise<CliPool> => {
  let pg: typeof import('pg');
  try {
    pg = (await import('pg')).default as unknown as typeof import('pg');
  } catch {
    throw new CliError(`${who} needs the package 'pg': npm install pg`);
  }
  checkDatabaseUrl(database);
  const pool = new pg.Pool({ connectionString: database, max: 4 });
  // An idle client that loses its server must not crash the process: the next query reports it.
  pool.on('error', () => undefined);
  return pool as unknown as CliPool;
};
