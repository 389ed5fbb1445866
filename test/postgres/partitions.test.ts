/**
 * Partitioned workers in one process: equivalence with the sequential fold
 * for any number of partitions and workers, the migration, the fair share,
 * fencing of a stale batch, and the status.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEvents } from '../../bench/generate-stream.js';
import { importRecords } from '../../src/postgres/log/import-events.js';
import { readProjectionStatus } from '../../src/postgres/read/partition-status.js';
import { migrate } from '../../src/postgres/schema/migrate.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/postgres/schema/migrations.js';
import type { SchemaName } from '../../src/postgres/schema-name.js';
import { createProjectionWorker } from '../../src/postgres/worker/projection-worker.js';
import { rawStreamArb, recordsLog, recordsOf } from '../support/engine-arbitraries.js';
import { eventually } from '../support/eventually.js';
import { expectEqualsSequentialFold } from '../support/partition-checks.js';
import { type PostgresServer, postgresDatabase } from '../support/postgres-server.js';

let server: PostgresServer;
let pool: pg.Pool;
let schemas = 0;

beforeAll(async () => {
  server = await postgresDatabase();
  pool = new pg.Pool({ connectionString: server.url, max: 12 });
});

afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

const freshSchema = async (partitions: number): Promise<string> => {
  schemas += 1;
  const schema = `p${schemas}`;
  (await migrate(pool, { schema, partitions }))._unsafeUnwrap();
  return schema;
};

const sampleRecords = (seed: number, maxLength: number) =>
  recordsOf(fc.sample(rawStreamArb({ badLines: true, maxLength }), { numRuns: 1, seed })[0] ?? []);

describe('partitioned workers', () => {
  it('equal the sequential fold for any partitions, workers and batch size', async () => {
    await fc.assert(
      fc.asyncProperty(
        rawStreamArb({ badLines: true, maxLength: 80 }),
        fc.constantFrom(1, 2, 3, 8),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 9 }),
        async (items, partitions, workers, batchSize) => {
          const schema = await freshSchema(partitions);
          const records = recordsOf(items);
          (await importRecords(pool, recordsLog(records, 7).read(), { schema }))._unsafeUnwrap();
          const started = await Promise.all(
            Array.from({ length: workers }, () =>
              // A lease no worker of this process loses to a busy machine (nothing here waits
              // for one to run out: drained workers give their partitions back).
              createProjectionWorker(pool, { schema, batchSize, leaseMs: 60_000 }),
            ),
          );
          const drained = await Promise.all(started.map((w) => w._unsafeUnwrap().drain()));
          for (const result of drained) expect(result.isOk()).toBe(true);
          await expectEqualsSequentialFold(pool, schema);
        },
      ),
      { numRuns: 20, seed: 20261124 },
    );
  });

  it('a version 1 schema with events is upgraded: every stored event gets its partition', async () => {
    const schema = 'upgraded' as SchemaName;
    await pool.query(`CREATE SCHEMA ${schema}`);
    await pool.query(
      `CREATE TABLE ${schema}.schema_version (singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
         version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())`,
    );
    await pool.query(MIGRATIONS[0]?.(schema, { partitions: 1 }) ?? '');
    await pool.query(`INSERT INTO ${schema}.schema_version (version) VALUES (1)`);
    const records = sampleRecords(5, 150).filter((r) => r.kind === 'entry');
    for (const record of records) {
      if (record.kind !== 'entry') continue;
      const event = record.event as Record<string, unknown> | null;
      const type = typeof event?.type === 'string' ? event.type : null;
      const id = typeof event?.signRequestId === 'number' ? event.signRequestId : null;
      await pool.query(
        `INSERT INTO ${schema}.events (body, event_type, sign_request_id) VALUES ($1, $2, $3)`,
        [record.raw, type, id],
      );
    }
    const migrated = (await migrate(pool, { schema, partitions: 4 }))._unsafeUnwrap();
    expect(migrated).toMatchObject({ from: 1, to: SCHEMA_VERSION, partitions: 4 });
    const spread = await pool.query<{ partition: number }>(
      `SELECT DISTINCT partition FROM ${schema}.events ORDER BY partition`,
    );
    expect(spread.rows.length).toBeGreaterThan(2);
    const worker = (await createProjectionWorker(pool, { schema }))._unsafeUnwrap();
    (await worker.drain())._unsafeUnwrap();
    await expectEqualsSequentialFold(pool, schema);
  });

  it('the number of partitions is fixed once chosen', async () => {
    const schema = await freshSchema(4);
    expect((await migrate(pool, { schema, partitions: 4 }))._unsafeUnwrap()).toMatchObject({
      from: SCHEMA_VERSION,
      partitions: 4,
    });
    const refused = await migrate(pool, { schema, partitions: 8 });
    expect(refused._unsafeUnwrapErr().message).toBe(
      `schema ${schema} has 4 partitions, fixed when it was created: it cannot get 8 (migrate a new schema and rebuild there)`,
    );
    expect((await migrate(pool, { schema: 'x', partitions: 0 }))._unsafeUnwrapErr().kind).toBe(
      'invalid-option',
    );
  });

  it('a worker that starts later gets a fair share within a heartbeat or two', async () => {
    const schema = await freshSchema(8);
    // Heartbeats every 500 ms; a batch transaction may idle 2 s before the server ends it.
    const leaseMs = 2000;
    const a = (await createProjectionWorker(pool, { schema, leaseMs }))._unsafeUnwrap();
    (await a.catchUp())._unsafeUnwrap();
    expect(a.partitions()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const b = (await createProjectionWorker(pool, { schema, leaseMs }))._unsafeUnwrap();
    const c = (await createProjectionWorker(pool, { schema, leaseMs }))._unsafeUnwrap();
    /** Runs the workers, a heartbeat apart, until they hold all partitions in `shares` (sorted). */
    const untilShares = (workers: readonly (typeof a)[], shares: readonly number[]) =>
      eventually(
        async () => {
          for (const w of workers) (await w.catchUp())._unsafeUnwrap();
          const held = workers.map((w) => w.partitions());
          return (
            held.flat().sort().join() === '0,1,2,3,4,5,6,7' &&
            held
              .map((p) => p.length)
              .sort()
              .join() === shares.join()
          );
        },
        `shares of ${shares.join(', ')}`,
        { intervalMs: leaseMs / 4 },
      );
    await untilShares([a, b, c], [2, 3, 3]);
    // A clean exit gives partitions back at once; the others take them.
    (await c.release())._unsafeUnwrap();
    await untilShares([a, b], [4, 4]);
  });

  it('a batch folded before its lease expired and written after another took over is refused', async () => {
    const schema = await freshSchema(2);
    const records = sampleRecords(9, 200);
    (await importRecords(pool, recordsLog(records, 50).read(), { schema }))._unsafeUnwrap();
    // Long enough that no live worker here loses its lease to a busy machine; the stale one's
    // runs out when the test says so (below), not after a wait.
    const leaseMs = 60_000;
    let resume: () => void = () => undefined;
    let paused = false;
    const lost: number[] = [];
    const stale = (
      await createProjectionWorker(pool, {
        schema,
        leaseMs,
        batchSize: 10,
        onLostClaim: (partition) => lost.push(partition),
        onFolded: () => {
          if (paused) return;
          paused = true;
          return new Promise<void>((resolve) => {
            resume = resolve;
          });
        },
      })
    )._unsafeUnwrap();
    const staleRun = stale.drain();
    await eventually(() => paused, 'the stale worker to fold its first batch');
    // Its lease runs out while it holds the folded batch (as the clock would make it).
    await pool.query(
      `UPDATE ${schema}.partitions SET lease_until = clock_timestamp() WHERE owner = $1`,
      [stale.id],
    );
    await pool.query(`UPDATE ${schema}.workers SET lease_until = clock_timestamp() WHERE id = $1`, [
      stale.id,
    ]);
    const other = (await createProjectionWorker(pool, { schema, leaseMs }))._unsafeUnwrap();
    (await other.drain())._unsafeUnwrap();
    await expectEqualsSequentialFold(pool, schema);
    resume();
    (await staleRun)._unsafeUnwrap();
    expect(lost.length).toBeGreaterThanOrEqual(1);
    await expectEqualsSequentialFold(pool, schema);
  });

  it('status shows owners, checkpoints, lag in events and seconds, and the last error', async () => {
    const schema = await freshSchema(3);
    const records = sampleRecords(3, 60);
    (await importRecords(pool, recordsLog(records, 50).read(), { schema }))._unsafeUnwrap();
    const before = (await readProjectionStatus(pool, { schema }))._unsafeUnwrap();
    expect(before).toMatchObject({ schema, events: records.length, checkpoint: 0, workers: [] });
    expect(before.partitions.map((p) => [p.partition, p.owner, p.checkpoint])).toEqual([
      [0, null, 0],
      [1, null, 0],
      [2, null, 0],
    ]);
    const lagged = before.partitions.reduce((sum, p) => sum + p.lagEvents, 0);
    expect(lagged).toBeGreaterThanOrEqual(records.length);
    // Imported history is old by receivedAt, but lag s counts at most the time since the
    // partition last moved (here: since migrate), not the history's age.
    expect(before.partitions.every((p) => p.lagSeconds !== null && p.lagSeconds < 600)).toBe(true);
    const worker = (await createProjectionWorker(pool, { schema }))._unsafeUnwrap();
    (await worker.catchUp())._unsafeUnwrap();
    await pool.query(
      `UPDATE ${schema}.partitions SET last_error = 'boom', last_error_at = now() WHERE partition = 1`,
    );
    const after = (await readProjectionStatus(pool, { schema }))._unsafeUnwrap();
    expect(after.checkpoint).toBe(records.length);
    expect(after.workers.map((w) => w.id)).toEqual([worker.id]);
    for (const p of after.partitions) {
      expect(p).toMatchObject({ owner: worker.id, lagEvents: 0, lagSeconds: 0 });
      expect(p.leaseRemainingMs).toBeGreaterThan(0);
    }
    expect(after.partitions[1]?.lastError).toBe('boom');
    expect(after.partitions[1]?.lastErrorAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("the docs' recipe rebuilds one partition while the worker keeps the others", async () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/postgres.md'), 'utf8');
    const recipe = /## Rebuilding while the others keep running[\s\S]*?```sql\n([\s\S]*?)```/.exec(
      doc,
    )?.[1];
    expect(recipe).toContain('partition = 3');
    const url = await server.createDatabase('rebuild_one');
    const db = new pg.Pool({ connectionString: url, max: 4 });
    try {
      (await migrate(db, { partitions: 4 }))._unsafeUnwrap();
      const stream = [...generateEvents({ seed: 12, signRequests: 60, duplicateRate: 0.05 })];
      const records = recordsOf(stream.map((value) => ({ kind: 'value' as const, value })));
      (await importRecords(db, recordsLog(records, 50).read()))._unsafeUnwrap();
      // Heartbeats every 500 ms; a batch transaction may idle 2 s before the server ends it.
      const leaseMs = 2000;
      const worker = (await createProjectionWorker(db, { leaseMs, batchSize: 20 }))._unsafeUnwrap();
      (await worker.catchUp())._unsafeUnwrap();
      await expectEqualsSequentialFold(db, 'signfold');
      const rows = async () =>
        (
          await db.query<{ n: string }>(
            'SELECT count(*) AS n FROM signfold.sign_requests WHERE signfold.partition_of_request(id) = 3',
          )
        ).rows[0]?.n;
      expect(Number(await rows())).toBeGreaterThan(0);
      await db.query(recipe ?? '');
      expect(await rows()).toBe('0');
      expect(worker.partitions()).toEqual([0, 1, 2, 3]);
      // The worker finds partition 3 taken from it, and claims it again at a heartbeat.
      await eventually(
        async () => {
          (await worker.catchUp())._unsafeUnwrap();
          return (await rows()) !== '0';
        },
        'partition 3 to be claimed again and rebuilt',
        { intervalMs: leaseMs / 4 },
      );
      expect(worker.partitions()).toEqual([0, 1, 2, 3]);
      await expectEqualsSequentialFold(db, 'signfold');
    } finally {
      await db.end();
    }
  });
});
