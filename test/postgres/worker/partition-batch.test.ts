import { describe, expect, it } from 'vitest';
import type { SqlPool } from '../../../src/postgres/sql-client.js';
import {
  type BatchContext,
  projectPartitionBatch,
} from '../../../src/postgres/worker/partition-batch.js';
import { oneEventSchema } from '../../support/one-event-schema.js';
import { throwawayPostgres } from '../../support/postgres-server.js';
import { recordStatements } from '../../support/recording-pool.js';

const db = throwawayPostgres(3);

const WORKER = 'batch-test-worker';
const LEASE_MS = 60_000;

const recordingPool = () => recordStatements(db.pool);

/** {@link oneEventSchema} for `worker` ({@link WORKER}), with a batch context on it. */
const batchSchema = async (schema: string, worker = WORKER) => {
  const { name, claims, own, position } = await oneEventSchema(db.pool, schema, worker, LEASE_MS);
  const context: BatchContext = {
    schema: name,
    workerId: worker,
    leaseMs: LEASE_MS,
    batchSize: 100,
    strict: false,
  };
  const other = [0, 1, 2, 3].find((p) => p !== own) ?? -2;
  return { context, claims, own, other, position };
};

const partitionRow = async (schema: string, partition: number) =>
  (
    await db.pool.query<{ position: string; applied: string; invalid: string; conflicts: string }>(
      `SELECT position, applied, invalid, conflicts FROM ${schema}.partitions WHERE partition = $1`,
      [partition],
    )
  ).rows[0];

describe('a partition batch', () => {
  it('of a partition with no new event of its own moves only its checkpoint: no row loaded, no lock taken', async () => {
    const schema = 'batch_empty';
    const { context, claims, other, position } = await batchSchema(schema);
    const recording = recordingPool();
    const outcome = await projectPartitionBatch(
      recording.pool,
      context,
      other,
      claims.get(other) ?? 0,
    );
    expect(outcome).toEqual({ kind: 'projected', processed: 0, caughtUp: true });
    expect(await partitionRow(schema, other)).toEqual({
      position: String(position),
      applied: '0',
      invalid: '0',
      conflicts: '0',
    });
    // Every wake-up of a live worker visits every partition it holds: an idle
    // one must cost a few round trips, not a full batch.
    const text = recording.statements.join('\n');
    expect(text).not.toMatch(/FOR UPDATE/);
    expect(text).not.toMatch(
      /FROM \S+\.(sign_requests|participants|templates|partition_templates)\b/,
    );
    expect(recording.statements.length).toBeLessThanOrEqual(5);
  });

  it('of a partition with no new event still refuses to move a checkpoint that another worker claimed meanwhile', async () => {
    const schema = 'batch_empty_fenced';
    const { context, claims, other } = await batchSchema(schema);
    const outcome = await projectPartitionBatch(
      db.pool,
      {
        ...context,
        // Another worker claims the partition between the read and the write.
        onFolded: async (partition) => {
          await db.pool.query(
            `UPDATE ${schema}.partitions SET owner = 'someone-else', epoch = epoch + 1 WHERE partition = $1`,
            [partition],
          );
        },
      },
      other,
      claims.get(other) ?? 0,
    );
    expect(outcome).toEqual({ kind: 'lost' });
    expect((await partitionRow(schema, other))?.position).toBe('0');
  });

  it('locks its claim in the round trip of its BEGIN, under any worker id, however the server reads backslashes', async () => {
    // The lock goes with the BEGIN as one text, so its values are literals:
    // an id made of quotes and backslashes must still name this worker.
    const hostile = "o'brien\\'); SELECT pg_sleep(60); --\\";
    for (const conforming of ['on', 'off']) {
      const schema = `batch_literal_${conforming}`;
      const { context, claims, own, position } = await batchSchema(schema, hostile);
      const recording = recordingPool();
      const pool: SqlPool = {
        ...recording.pool,
        connect: async () => {
          const client = await recording.pool.connect();
          await client.query(`SET standard_conforming_strings = ${conforming}`);
          return {
            query: client.query,
            release: (destroy) => {
              // The setting must not outlive the test on the shared pool's connection.
              void client
                .query('RESET standard_conforming_strings')
                .finally(() => client.release(destroy));
            },
          };
        },
      };
      const outcome = await projectPartitionBatch(pool, context, own, claims.get(own) ?? 0);
      expect(outcome).toEqual({ kind: 'projected', processed: 1, caughtUp: true });
      expect((await partitionRow(schema, own))?.position).toBe(String(position));
      const begun = recording.statements.filter((text) => text.startsWith('BEGIN'));
      expect(begun).toHaveLength(1);
      expect(begun[0]).toMatch(/FOR UPDATE$/);
    }
  });

  it('commits without waiting for the WAL flush, and leaves the db.pool’s connections synchronous (appends)', async () => {
    const schema = 'batch_async_commit';
    const { context, claims, own, position } = await batchSchema(schema);
    const recording = recordingPool();
    const outcome = await projectPartitionBatch(recording.pool, context, own, claims.get(own) ?? 0);
    expect(outcome).toMatchObject({ kind: 'projected', processed: 1, caughtUp: true });
    expect((await partitionRow(schema, own))?.position).toBe(String(position));
    expect(recording.commitSettings).toEqual(['off']);
    // Five round trips for a batch with an event: its partition row and events,
    // the loads of the three tables, BEGIN with the claim's lock, the writes
    // with the checkpoint, COMMIT.
    expect(recording.statements).toHaveLength(5);
    // SET LOCAL ends with the transaction: every connection of the db.pool (the
    // one the batch used among them) still commits synchronously.
    const clients = await Promise.all([db.pool.connect(), db.pool.connect(), db.pool.connect()]);
    try {
      for (const client of clients) {
        const shown = await client.query('SHOW synchronous_commit');
        expect(shown.rows[0]?.synchronous_commit).toBe('on');
      }
    } finally {
      for (const client of clients) client.release();
    }
  });
});
