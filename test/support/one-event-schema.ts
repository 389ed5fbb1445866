/**
 * The fixture of the partition tests: a migrated schema of 4 partitions with
 * one sign request event appended, every partition claimed by one worker.
 */
import type pg from 'pg';
import { expect } from 'vitest';
import { openPostgresEventLog } from '../../src/postgres/log/postgres-event-log.js';
import { migrate } from '../../src/postgres/schema/migrate.js';
import { schemaName } from '../../src/postgres/schema-name.js';
import { maintainClaims } from '../../src/postgres/worker/partition-leases.js';
import { events } from '../../src/testing/index.js';

/** Migrates `schema` (4 partitions), appends one event and claims every partition for `worker`. */
export const oneEventSchema = async (
  pool: pg.Pool,
  schema: string,
  worker: string,
  leaseMs: number,
) => {
  (await migrate(pool, { schema, partitions: 4 }))._unsafeUnwrap();
  const log = (await openPostgresEventLog(pool, { schema }))._unsafeUnwrap();
  const stored = (await log.append(events.signRequestSent({ signRequestId: 7 })))._unsafeUnwrap();
  const { rows } = await pool.query<{ partition: number }>(
    `SELECT partition FROM ${schema}.events WHERE position = $1`,
    [stored.position],
  );
  const name = schemaName(schema)._unsafeUnwrap();
  const claims = await maintainClaims(pool, name, worker, leaseMs, 4);
  expect(claims.size).toBe(4);
  /** The partition the event went to. */
  const own = rows[0]?.partition ?? -2;
  return { name, claims, own, position: stored.position };
};
