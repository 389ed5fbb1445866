/** The throwaway PostgreSQL server of the tests (shared with the benchmarks). */
export { type PostgresServer, startPostgres } from '../../scripts/throwaway-postgres.js';

import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { type PostgresServer, startPostgres } from '../../scripts/throwaway-postgres.js';

/** The server and pool of {@link throwawayPostgres}, readable once its `beforeAll` ran. */
export interface ThrowawayPostgres {
  readonly server: PostgresServer;
  readonly pool: pg.Pool;
}

/**
 * A throwaway server and a pool of `poolSize` connections on it for the
 * tests of one file (or describe block): started before them, the pool ended
 * and the server stopped and deleted after them, also when they fail.
 */
export const throwawayPostgres = (poolSize = 6): ThrowawayPostgres => {
  let server: PostgresServer | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    server = await startPostgres();
    pool = new pg.Pool({ connectionString: server.url, max: poolSize });
  });
  afterAll(async () => {
    await pool?.end();
    server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the throwaway PostgreSQL server is not started yet');
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get pool() {
      return started(pool);
    },
  };
};
