/**
 * Preparing a rebuild schema while another process holds its preparation: the lock wait of one
 * attempt is bounded by the session's `lock_timeout`, the whole wait by `prepareRebuild`'s own.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareRebuild } from '../../../src/postgres/rebuild/rebuild-schema.js';
import { migrate } from '../../../src/postgres/schema/migrate.js';
import { sessionBounds } from '../../../src/postgres/session-bounds.js';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';

let server: PostgresServer;
beforeAll(async () => {
  server = await postgresDatabase();
});
afterAll(() => server?.stop());

/** A migrated database, a pool whose lock waits end after 1 s, and a second session. */
const database = async (name: string) => {
  const url = await server.createDatabase(name);
  const pool = new pg.Pool({ connectionString: url, max: 2, ...sessionBounds(2000) });
  (await migrate(pool, { partitions: 2 }))._unsafeUnwrap();
  const holder = new pg.Client(url);
  await holder.connect();
  return { pool, holder };
};

/**
 * Takes the preparation's lock of `signfold_rebuild` in `holder`; resolves, once it holds it, to
 * the promise that lets it go after `ms`.
 */
const holdPreparation = async (
  holder: pg.Client,
  ms: number,
): Promise<{ released: Promise<void> }> => {
  await holder.query('BEGIN');
  await holder.query(
    "SELECT pg_advisory_xact_lock(hashtext('signfold.migrate'), hashtext('signfold_rebuild'))",
  );
  const released = (async () => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    await holder.query('COMMIT');
  })();
  return { released };
};

describe('prepareRebuild while another process prepares', () => {
  it('waits past the session’s lock_timeout (1 s) and then makes the schema', async () => {
    const { pool, holder } = await database('prepare_waits');
    try {
      const { released } = await holdPreparation(holder, 3000);
      const started = Date.now();
      const prepared = await prepareRebuild(pool, undefined, []);
      await released;
      expect(prepared._unsafeUnwrap()).toMatchObject({
        how: 'created',
        rebuild: 'signfold_rebuild',
      });
      // It did wait for the holder: longer than one lock wait (1 s) could have.
      expect(Date.now() - started).toBeGreaterThanOrEqual(2500);
    } finally {
      await holder.end();
      await pool.end();
    }
  });

  it('gives up after its own bound, naming what held it, and makes nothing', async () => {
    const { pool, holder } = await database('prepare_gives_up');
    try {
      const { released } = await holdPreparation(holder, 6000);
      const prepared = await prepareRebuild(pool, undefined, [], 3000);
      expect(prepared._unsafeUnwrapErr()).toMatchObject({
        kind: 'database',
        code: '55P03',
        message:
          'preparing schema signfold_rebuild: another process held its preparation for over 3 s',
      });
      await released;
      const { rows } = await pool.query(
        "SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'signfold_rebuild'",
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await holder.end();
      await pool.end();
    }
  });
});
