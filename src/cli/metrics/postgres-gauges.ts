/**
 * The gauges of `pg work --metrics-port` and `serve --database`, read from
 * the database at each scrape on a connection of their own: a scrape never
 * waits for, nor holds, a connection the worker or the server needs, and its
 * statements are cancelled by the server past the scrape bound.
 */
import { readProjectionGauges } from '../../postgres/read/projection-gauges.js';
import type { SchemaName } from '../../postgres/schema-name.js';
import { withoutPassword } from '../database-url.js';
import { openPool } from '../postgres-pool.js';
import { type GaugeReader, SCRAPE_READ_TIMEOUT_MS } from './projection-metrics.js';

/** A reader and the pool it owns. */
export interface PostgresGauges {
  readonly read: GaugeReader;
  /** Ends its connection. */
  close(): Promise<void>;
}

/** Opens the one-connection pool of the gauges of `schema` (a checked schema name). */
export const openPostgresGauges = async (
  database: string,
  schema: SchemaName,
  connectTimeoutMs: number,
): Promise<PostgresGauges> => {
  const pool = await openPool(database, {
    // A scrape must not wait a whole connect timeout: it has the scrape bound in all.
    connectTimeoutMs: Math.min(connectTimeoutMs, SCRAPE_READ_TIMEOUT_MS),
    queryTimeoutMs: SCRAPE_READ_TIMEOUT_MS,
    max: 1,
    who: 'signfold metrics',
  });
  return {
    read: async () => {
      try {
        return await readProjectionGauges(pool, schema);
      } catch (cause) {
        const message = cause instanceof Error ? cause.message : String(cause);
        throw new Error(`database: ${withoutPassword(message, database)}`);
      }
    },
    close: () => pool.end().catch(() => undefined),
  };
};
