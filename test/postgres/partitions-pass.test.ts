/**
 * A pass over several partitions in one transaction: the tables it leaves
 * equal the sequential fold, and anything unusual (a claim fenced meanwhile,
 * an event skipped meanwhile, more than a batch) makes it write nothing and
 * decline, leaving the partitions to their batches.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../src/engine/event-log.js';
import type { BatchContext } from '../../src/postgres/batch-context.js';
import { importRecords } from '../../src/postgres/import-events.js';
import { migrate } from '../../src/postgres/migrate.js';
import { maintainClaims } from '../../src/postgres/partition-leases.js';
import { projectPartitionsTogether } from '../../src/postgres/partitions-pass.js';
import { partitionsWithWork } from '../../src/postgres/partitions-with-work.js';
import { createProjectionWorker } from '../../src/postgres/projection-worker.js';
import { type SchemaName, schemaName } from '../../src/postgres/schema-name.js';
import { skipPosition } from '../../src/postgres/skip-position.js';
import { events } from '../../src/testing/index.js';
import { rawStreamArb, recordsLog, recordsOf } from '../support/engine-arbitraries.js';
import { expectEqualsSequentialFold } from '../support/partition-checks.js';
import { throwawayPostgres } from '../support/postgres-server.js';

const db = throwawayPostgres(6);

const WORKER = 'pass-test-worker';
const LEASE_MS = 60_000;
const PARTITIONS = 4;
let schemas = 0;

const freshSchema = async (): Promise<SchemaName> => {
  schemas += 1;
  const schema = `pass${schemas}`;
  (await migrate(db.pool, { schema, partitions: PARTITIONS }))._unsafeUnwrap();
  return schemaName(schema)._unsafeUnwrap();
};

const contextOf = (schema: SchemaName, more: Partial<BatchContext> = {}): BatchContext => ({
  schema,
  workerId: WORKER,
  leaseMs: LEASE_MS,
  batchSize: 5000,
  strict: false,
  ...more,
});

const append = async (schema: SchemaName, records: readonly LogRecord[]): Promise<void> => {
  (await importRecords(db.pool, recordsLog(records, 7).read(), { schema }))._unsafeUnwrap();
};

const checkpoints = async (schema: SchemaName): Promise<number[]> => {
  const { rows } = await db.pool.query<{ position: string }>(
    `SELECT position FROM ${schema}.partitions ORDER BY partition`,
  );
  return rows.map((row) => Number(row.position));
};

/** Events for sign requests 1–4 (spread over the partitions) and a template event. */
const spreadRecords = (): LogRecord[] =>
  [
    events.signRequestSent({ signRequestId: 1 }),
    events.signRequestSent({ signRequestId: 2 }),
    events.templateActivated({ templateId: 5 }),
    events.signRequestSent({ signRequestId: 3 }),
    events.signRequestSent({ signRequestId: 4 }),
  ].map((event, i) => ({
    kind: 'entry',
    position: i + 1,
    line: i + 1,
    event,
    raw: JSON.stringify(event),
    deliveryId: `spread-${i}`,
    receivedAt: undefined,
  }));

describe('a pass over several partitions', () => {
  it('leaves the tables, quarantine and counters of the sequential fold, appended in trickles', async () => {
    let passes = 0;
    await fc.assert(
      fc.asyncProperty(
        rawStreamArb({ badLines: true, maxLength: 60 }),
        fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 20 }),
        async (items, cuts) => {
          const schema = await freshSchema();
          const records = recordsOf(items);
          const claims = await maintainClaims(db.pool, schema, WORKER, LEASE_MS, PARTITIONS);
          const worker = (
            await createProjectionWorker(db.pool, { schema, workerId: WORKER, leaseMs: LEASE_MS })
          )._unsafeUnwrap();
          let at = 0;
          for (let i = 0; at < records.length; i += 1) {
            const chunk = records.slice(at, at + (cuts[i % cuts.length] ?? 1));
            at += chunk.length;
            await append(schema, chunk);
            const found = await partitionsWithWork(db.pool, schema, WORKER, claims, LEASE_MS);
            const outcome = await projectPartitionsTogether(
              db.pool,
              contextOf(schema),
              claims,
              found,
            );
            if (outcome.kind === 'projected') {
              passes += 1;
              expect(await checkpoints(schema)).toEqual(Array(PARTITIONS).fill(found.high));
            }
            // What a pass declined (one partition behind, two naming one request) the batches take.
            (await worker.catchUp())._unsafeUnwrap();
          }
          await expectEqualsSequentialFold(db.pool, schema);
        },
      ),
      { numRuns: 12, seed: 20261127 },
    );
    // The law is about passes: most trickles of several events touch several partitions.
    expect(passes).toBeGreaterThan(20);
  });

  it('declines, writing nothing, when a claim is fenced between the read and the write', async () => {
    const schema = await freshSchema();
    await append(schema, spreadRecords());
    const claims = await maintainClaims(db.pool, schema, WORKER, LEASE_MS, PARTITIONS);
    const found = await partitionsWithWork(db.pool, schema, WORKER, claims, LEASE_MS);
    expect(found.behind.size).toBe(PARTITIONS);
    let fenced = false;
    const onFolded = async (partition: number): Promise<void> => {
      if (fenced) return;
      fenced = true;
      // What a forget or a switch does: the epoch moves on.
      await db.pool.query(
        `UPDATE ${schema}.partitions SET epoch = epoch + 1 WHERE partition = $1`,
        [partition],
      );
    };
    const outcome = await projectPartitionsTogether(
      db.pool,
      contextOf(schema, { onFolded }),
      claims,
      found,
    );
    expect(outcome).toEqual({ kind: 'declined' });
    expect(await checkpoints(schema)).toEqual([0, 0, 0, 0]);
    const { rows } = await db.pool.query(`SELECT id FROM ${schema}.sign_requests`);
    expect(rows).toEqual([]);
  });

  it('declines when an event it read is skipped before it writes, and the batches then fold without it', async () => {
    const schema = await freshSchema();
    await append(schema, spreadRecords());
    const claims = await maintainClaims(db.pool, schema, WORKER, LEASE_MS, PARTITIONS);
    const found = await partitionsWithWork(db.pool, schema, WORKER, claims, LEASE_MS);
    let skipped = false;
    const onFolded = async (): Promise<void> => {
      if (skipped) return;
      skipped = true;
      (await skipPosition(db.pool, 2, { schema, reason: 'test' }))._unsafeUnwrap();
    };
    const outcome = await projectPartitionsTogether(
      db.pool,
      contextOf(schema, { onFolded }),
      claims,
      found,
    );
    expect(outcome).toEqual({ kind: 'declined' });
    expect(await checkpoints(schema)).toEqual([0, 0, 0, 0]);
    const worker = (
      await createProjectionWorker(db.pool, { schema, workerId: WORKER, leaseMs: LEASE_MS })
    )._unsafeUnwrap();
    (await worker.catchUp())._unsafeUnwrap();
    const { rows } = await db.pool.query<{ id: string }>(
      `SELECT id FROM ${schema}.sign_requests ORDER BY id`,
    );
    expect(rows.map((row) => Number(row.id))).toEqual([1, 3, 4]);
  });

  it('declines more events than one batch holds, and a single partition behind', async () => {
    const schema = await freshSchema();
    await append(schema, spreadRecords());
    const claims = await maintainClaims(db.pool, schema, WORKER, LEASE_MS, PARTITIONS);
    const found = await partitionsWithWork(db.pool, schema, WORKER, claims, LEASE_MS);
    // 4 request events and the template event read by every partition: 8 rows in all.
    const small = contextOf(schema, { batchSize: 8 });
    expect(await projectPartitionsTogether(db.pool, small, claims, found)).toEqual({
      kind: 'declined',
    });
    const one = { ...found, behind: new Map([...found.behind].slice(0, 1)) };
    expect(await projectPartitionsTogether(db.pool, contextOf(schema), claims, one)).toEqual({
      kind: 'declined',
    });
    expect(await checkpoints(schema)).toEqual([0, 0, 0, 0]);
    const enough = contextOf(schema, { batchSize: 9 });
    expect(await projectPartitionsTogether(db.pool, enough, claims, found)).toEqual({
      kind: 'projected',
      processed: 5,
    });
    await expectEqualsSequentialFold(db.pool, schema);
  });
});
