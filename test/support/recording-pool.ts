/** A pool that records the statements sent through it (tests count round trips with it). */
import type pg from 'pg';
import type { SqlPool, SqlPoolClient } from '../../src/postgres/sql-client.js';

/** A pool over `pool` that records every statement it runs, and the transaction's synchronous_commit at each COMMIT. */
export const recordStatements = (
  pool: pg.Pool,
): { pool: SqlPool; statements: string[]; commitSettings: string[] } => {
  const statements: string[] = [];
  const commitSettings: string[] = [];
  const recorded: SqlPool = {
    query: (text, values) => {
      statements.push(typeof text === 'string' ? text : text.text);
      return pool.query(text as string, values as unknown[]) as never;
    },
    connect: async () => {
      const client = await pool.connect();
      const wrapped: SqlPoolClient = {
        query: async (text, values) => {
          statements.push(typeof text === 'string' ? text : text.text);
          if (text === 'COMMIT') {
            const shown = await client.query('SHOW synchronous_commit');
            commitSettings.push(String(shown.rows[0]?.synchronous_commit));
          }
          return client.query(text as string, values as unknown[]) as never;
        },
        release: (destroy) => client.release(destroy),
      };
      return wrapped;
    },
  };
  return { pool: recorded, statements, commitSettings };
};
