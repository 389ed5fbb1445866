/**
 * `vacuumForgotten` against a server whose other sessions still read: VACUUM FULL copies every
 * row version a running transaction may read, so a transaction older than the vacuum (with a
 * transaction id, in any database of the server; with a snapshot, in this one) would leave the
 * forgotten name in the new table files. The vacuum waits for them, and past its wait refuses,
 * naming them, and vacuums nothing; once they end, no file of the schema holds the name.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { forgetPostgres } from '../../../src/postgres/forget/forget-postgres.js';
import { vacuumForgotten } from '../../../src/postgres/forget/vacuum-forgotten.js';
import { migrate } from '../../../src/postgres/schema/migrate.js';
import {
  filesHolding,
  fillStore,
  NAME,
  NAME_PART,
  PARTICIPANT,
  rowsHolding,
  USER,
} from '../../support/forget-store.js';
import { throwawayPostgres } from '../../support/postgres-server.js';

const db = throwawayPostgres(4);

/** A pool on a second database of the same server. */
let elsewhere: pg.Pool;
beforeAll(async () => {
  elsewhere = new pg.Pool({
    connectionString: await db.server.createDatabase('elsewhere'),
    max: 2,
  });
});
afterAll(async () => {
  await elsewhere?.end();
});

let schemas = 0;
/** A schema that held the name everywhere. */
const storeWithName = async () => {
  schemas += 1;
  const schema = `v${schemas}`;
  (await migrate(db.pool, { schema, partitions: 2 }))._unsafeUnwrap();
  await fillStore(db.pool, schema);
  return schema;
};

/** Forgets the person in `schema` (committed): no row holds the name, its old versions are dead. */
const forget = async (schema: string) => {
  const request = { participantIds: [PARTICIPANT], userIds: [USER], names: [NAME], dryRun: false };
  const report = (await forgetPostgres(db.pool, request, { schema }))._unsafeUnwrap();
  expect(await rowsHolding(db.pool, schema, [NAME_PART])).toEqual([]);
  return report;
};

/** The transactions a test left open (it failed half way): ended after it, so the pools can end. */
const open = new Set<() => Promise<void>>();
afterEach(async () => {
  for (const end of open) await end();
});

/** A session of `pool` inside a transaction begun by `begin` (then `statement`); `end()` commits. */
const openTransaction = async (pool: pg.Pool, begin: string, statement: string) => {
  const client = await pool.connect();
  const end = async () => {
    if (!open.delete(end)) return;
    try {
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  };
  open.add(end);
  await client.query(begin);
  await client.query(statement);
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return { pid: rows[0]?.pid, end };
};

describe('vacuumForgotten and the transactions older than it', () => {
  it('refuses, naming it, while a transaction that wrote in another database runs; vacuums once it ended', async () => {
    const schema = await storeWithName();
    const other = await openTransaction(elsewhere, 'BEGIN', 'SELECT pg_current_xact_id()');
    const report = await forget(schema);
    try {
      // What the wait guards against: a VACUUM FULL now keeps the dead versions.
      await db.pool.query(`VACUUM FULL ${schema}.participants`);
      expect(await filesHolding(db.pool, schema, NAME_PART)).not.toEqual([]);

      const refused = await vacuumForgotten(db.pool, report, { schema, waitMs: 300 });
      const error = refused._unsafeUnwrapErr();
      expect(error.kind).toBe('database');
      expect(error.message).toContain('transactions older than the vacuum still ran after 0.3 s');
      expect(error.message).toContain(`session ${other.pid} (database `);
      expect(error.message).toContain('nothing was vacuumed');
    } finally {
      await other.end();
    }
    const vacuumed = (await vacuumForgotten(db.pool, report, { schema }))._unsafeUnwrap();
    expect(vacuumed).toContain(`${schema}.events`);
    expect(await filesHolding(db.pool, schema, NAME_PART)).toEqual([]);
  });

  it('waits for an older transaction that ends within the wait, then leaves no file holding the name', async () => {
    const schema = await storeWithName();
    const other = await openTransaction(elsewhere, 'BEGIN', 'SELECT pg_current_xact_id()');
    const report = await forget(schema);
    const ended = new Promise((resolve) => setTimeout(resolve, 400)).then(other.end);
    const vacuumed = await vacuumForgotten(db.pool, report, { schema, waitMs: 60_000 });
    await ended;
    expect(vacuumed._unsafeUnwrap()).toContain(`${schema}.participants`);
    expect(await filesHolding(db.pool, schema, NAME_PART)).toEqual([]);
  });

  it('counts a snapshot taken before the forget in its own database, not one in another that wrote nothing', async () => {
    const schema = await storeWithName();
    const reading = 'BEGIN ISOLATION LEVEL REPEATABLE READ';
    const here = await openTransaction(db.pool, reading, 'SELECT count(*) FROM pg_class');
    const there = await openTransaction(elsewhere, reading, 'SELECT count(*) FROM pg_class');
    const report = await forget(schema);
    try {
      const refused = await vacuumForgotten(db.pool, report, { schema, waitMs: 200 });
      expect(refused._unsafeUnwrapErr().message).toContain(`session ${here.pid} (database `);
    } finally {
      await here.end();
    }
    try {
      (await vacuumForgotten(db.pool, report, { schema, waitMs: 200 }))._unsafeUnwrap();
      expect(await filesHolding(db.pool, schema, NAME_PART)).toEqual([]);
    } finally {
      await there.end();
    }
  });
});
