/**
 * Schema version 9 adds the outcome-time columns: a version-8 schema with
 * projected rows is upgraded in place (its rows keep NULL there), the worker
 * then writes them for what it folds, and the columns refuse an unknown
 * `outcome_from`.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEvent } from '../../../src/core/builders/plain-builders.js';
import { openPostgresEventLog } from '../../../src/postgres/log/postgres-event-log.js';
import { migrate } from '../../../src/postgres/schema/migrate.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../src/postgres/schema/migrations.js';
import type { SchemaName } from '../../../src/postgres/schema-name.js';
import { createProjectionWorker } from '../../../src/postgres/worker/projection-worker.js';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';

let server: PostgresServer;
let pool: pg.Pool;

beforeAll(async () => {
  server = await postgresDatabase();
  pool = new pg.Pool({ connectionString: await server.createDatabase('outcome_times'), max: 4 });
});

afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

describe('schema version 9: the outcome times', () => {
  it('upgrades a version-8 schema, leaves its rows NULL there, and the worker fills what it folds', async () => {
    expect(SCHEMA_VERSION).toBe(9);
    const schema = 'six' as SchemaName;
    await pool.query(`CREATE SCHEMA ${schema}`);
    await pool.query(
      `CREATE TABLE ${schema}.schema_version (singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
         version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const migration of MIGRATIONS.slice(0, 8)) {
      await pool.query(migration(schema, { partitions: 2 }));
    }
    await pool.query(`INSERT INTO ${schema}.schema_version (version) VALUES (8)`);
    // A row a version-8 worker wrote: a completed request, without the new columns.
    await pool.query(
      `INSERT INTO ${schema}.sign_requests (id, company_id, name, status, deleted, sent_at, last_event_at)
       VALUES (999, 1, 'Old', 'completed', false, now(), now())`,
    );

    const migrated = (await migrate(pool, { schema }))._unsafeUnwrap();
    expect(migrated).toMatchObject({ from: 8, to: 9 });
    const old = await pool.query(
      `SELECT completed_at, declined_at, deleted_at, outcome_from FROM ${schema}.sign_requests WHERE id = 999`,
    );
    expect(old.rows).toEqual([
      { completed_at: null, declined_at: null, deleted_at: null, outcome_from: null },
    ]);

    const log = (await openPostgresEventLog(pool, { schema }))._unsafeUnwrap();
    const at = (hour: number) => new Date(Date.UTC(2026, 0, 1, hour));
    await log.append(buildEvent('sign-request-sent'), { receivedAt: at(1) });
    await log.append(buildEvent('participant-sent'), { receivedAt: at(2) });
    await log.append(buildEvent('participant-declined'), { receivedAt: at(3) });
    await log.append(buildEvent('sign-request-declined'), { receivedAt: at(4) });
    await log.append(buildEvent('sign-request-deleted'), { receivedAt: at(5) });
    const worker = (await createProjectionWorker(pool, { schema }))._unsafeUnwrap();
    (await worker.drain())._unsafeUnwrap();
    const request = await pool.query(
      `SELECT status, completed_at, declined_at, deleted_at, outcome_from FROM ${schema}.sign_requests WHERE id = 1000`,
    );
    expect(request.rows).toEqual([
      {
        status: 'declined',
        completed_at: null,
        declined_at: at(4),
        deleted_at: at(5),
        outcome_from: 'event',
      },
    ]);
    const participant = await pool.query(
      `SELECT signed_at, declined_at, outcome_from FROM ${schema}.participants WHERE sign_request_id = 1000`,
    );
    expect(participant.rows).toEqual([
      { signed_at: null, declined_at: at(3), outcome_from: 'event' },
    ]);

    await expect(
      pool.query(`UPDATE ${schema}.participants SET outcome_from = 'guess'`),
    ).rejects.toThrow(/check constraint/);
  });
});
