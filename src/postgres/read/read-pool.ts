/**
 * The pool a read model opens for itself from a URL: four connections,
 * where reads queue rather than take the appends' connections, each
 * statement bounded by {@link READ_QUERY_TIMEOUT_MS}. Loads `pg` only here,
 * when asked: it is an optional peer dependency.
 */

import { sessionBounds } from '../session-bounds.js';
import type { SqlPool } from '../sql-client.js';
import { READ_QUERY_TIMEOUT_MS } from './postgres-read-model.js';

/** How long opening one connection may take, in ms: the CLI's default `--connect-timeout`. */
export const READ_CONNECT_TIMEOUT_MS = 10_000;

/** A pool its opener ends. */
export type ReadPool = SqlPool & { end(): Promise<void> };

/** Opens the read pool on the database `url`; rejects when `pg` is not installed. */
export const openReadPool = async (
  url: string,
  connectTimeoutMs = READ_CONNECT_TIMEOUT_MS,
): Promise<ReadPool> => {
  let pg: typeof import('pg');
  try {
    pg = (await import('pg')).default as unknown as typeof import('pg');
  } catch {
    throw new Error("a read model on PostgreSQL needs the package 'pg': npm install pg");
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: 4,
    connectionTimeoutMillis: connectTimeoutMs,
    ...sessionBounds(READ_QUERY_TIMEOUT_MS),
  });
  // An idle client that loses its server must not crash the process: the next read reports it.
  pool.on('error', () => undefined);
  return pool as unknown as ReadPool;
};
