/**
 * `projectPass` against a throwaway server: the batches of several partitions read in one
 * statement and written in one transaction (five round trips, however many partitions), the
 * tables equal to the sequential fold, the batch size shared among the partitions; a claim lost
 * writes nothing and names the partition; an event skipped while the pass folded writes nothing
 * and leaves the partitions to their batches, which fold without it.
 */
import { describe, expect, it } from 'vitest';
import { openPostgresEventLog } from '../../../src/postgres/log/postgres-event-log.js';
import { skipPosition } from '../../../src/postgres/log/skip-position.js';
import { migrate } from '../../../src/postgres/schema/migrate.js';
import { schemaName } from '../../../src/postgres/schema-name.js';
import type { BatchContext } from '../../../src/postgres/worker/partition-batch.js';
import { maintainClaims } from '../../../src/postgres/worker/partition-leases.js';
import { type PassClaim, projectPass } from '../../../src/postgres/worker/partition-pass.js';
import { createProjectionWorker } from '../../../src/postgres/worker/projection-worker.js';
import { events } from '../../../src/testing/index.js';
import { expectEqualsSequentialFold } from '../../support/partition-checks.js';
import { throwawayPostgres } from '../../support/postgres-server.js';
import { recordStatements } from '../../support/recording-pool.js';

const db = throwawayPostgres(3);

const WORKER = 'pass-test-worker';
const LEASE_MS = 60_000;

/**
 * A schema of 4 partitions holding `requests` sign requests (sent, one participant sent and
 * signed), every partition claimed by {@link WORKER}: the claims, and the context of a pass.
 */
const storeOf = async (schema: string, requests: number, batchSize = 100) => {
  (await migrate(db.pool, { schema, partitions: 4 }))._unsafeUnwrap();
  const log = (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
  for (let id = 1; id <= requests; id += 1) {
    const ids = { signRequestId: id, participantId: 100 + id };
    for (const event of [
      events.signRequestSent({ signRequestId: id }),
      events.participantSent(ids),
      events.participantSigned(ids),
    ]) {
      (await log.append(event))._unsafeUnwrap();
    }
  }
  await log.close();
  const name = schemaName(schema)._unsafeUnwrap();
  const held = await maintainClaims(db.pool, name, WORKER, LEASE_MS, 4);
  const claims: PassClaim[] = [...held].map(([partition, epoch]) => ({ partition, epoch }));
  const context: BatchContext = {
    schema: name,
    workerId: WORKER,
    leaseMs: LEASE_MS,
    batchSize,
    strict: false,
  };
  return { claims, context };
};

const checkpoints = async (schema: string): Promise<number[]> =>
  (
    await db.pool.query<{ position: string }>(
      `SELECT position FROM ${schema}.partitions ORDER BY partition`,
    )
  ).rows.map((row) => Number(row.position));

/** The partitions that hold events of `schema`. */
const partitionsWithEvents = async (schema: string): Promise<number[]> =>
  (
    await db.pool.query<{ partition: number }>(
      `SELECT DISTINCT partition FROM ${schema}.events ORDER BY partition`,
    )
  ).rows.map((row) => row.partition);

describe('projectPass', () => {
  it('writes the batches of every partition in one transaction, in five round trips, as the fold', async () => {
    const schema = 'pass_all';
    const { claims, context } = await storeOf(schema, 12);
    expect((await partitionsWithEvents(schema)).length).toBeGreaterThan(2);
    const recording = recordStatements(db.pool);
    const outcome = await projectPass(recording.pool, context, claims);
    expect(outcome).toEqual({ kind: 'projected', processed: 36, caughtUp: new Set([0, 1, 2, 3]) });
    // The read, the loads, BEGIN with the locks, the writes with the checkpoints, COMMIT.
    expect(recording.statements).toHaveLength(5);
    expect(recording.statements.filter((text) => text === 'COMMIT')).toHaveLength(1);
    expect(await checkpoints(schema)).toEqual([36, 36, 36, 36]);
    await expectEqualsSequentialFold(db.pool, schema);
  });

  it('shares the batch size among its partitions, and passes again until caught up', async () => {
    const schema = 'pass_shared';
    // 4 partitions, a batch of 4: one event of each partition per pass.
    const { claims, context } = await storeOf(schema, 12, 4);
    const first = await projectPass(db.pool, context, claims);
    if (first?.kind !== 'projected') throw new Error(`not projected: ${JSON.stringify(first)}`);
    expect(first.processed).toBeLessThanOrEqual(4);
    expect(first.processed).toBeGreaterThan(0);
    let total = first.processed;
    let behind = claims.filter((claim) => !first.caughtUp.has(claim.partition));
    for (let passes = 1; behind.length > 0; passes += 1) {
      expect(passes).toBeLessThan(40);
      const next = await projectPass(db.pool, context, behind);
      if (next?.kind !== 'projected') throw new Error(`not projected: ${JSON.stringify(next)}`);
      expect(next.processed).toBeLessThanOrEqual(4);
      total += next.processed;
      behind = behind.filter((claim) => !next.caughtUp.has(claim.partition));
    }
    expect(total).toBe(36);
    await expectEqualsSequentialFold(db.pool, schema);
  });

  it('writes nothing and names the partition when a claim is no longer held as claimed', async () => {
    const schema = 'pass_lost';
    const { claims, context } = await storeOf(schema, 8);
    const [taken, ...kept] = claims;
    if (taken === undefined) throw new Error('no claim');
    const stale = [{ ...taken, epoch: taken.epoch + 1 }, ...kept];
    expect(await projectPass(db.pool, context, stale)).toEqual({
      kind: 'lost',
      partitions: [taken.partition],
    });
    expect(await checkpoints(schema)).toEqual([0, 0, 0, 0]);
    // Lost between the read and the write: the locks find it, and nothing is written either.
    const recording = recordStatements(db.pool);
    const moved = await projectPass(
      recording.pool,
      {
        ...context,
        onFolded: async (partition) => {
          if (partition !== taken.partition) return;
          await db.pool.query(
            `UPDATE ${schema}.partitions SET owner = 'other', epoch = epoch + 1 WHERE partition = $1`,
            [partition],
          );
        },
      },
      claims,
    );
    expect(moved).toEqual({ kind: 'lost', partitions: [taken.partition] });
    expect(recording.statements.at(-1)).toBe('ROLLBACK');
    expect(await checkpoints(schema)).toEqual([0, 0, 0, 0]);
  });

  it('writes nothing when an event it read is skipped before it writes; the worker then folds without it', async () => {
    const schema = 'pass_skipped';
    const { claims, context } = await storeOf(schema, 8);
    let skipped = false;
    const outcome = await projectPass(
      db.pool,
      {
        ...context,
        onFolded: async () => {
          if (skipped) return;
          skipped = true;
          (await skipPosition(db.pool, 2, { schema }))._unsafeUnwrap();
        },
      },
      claims,
    );
    expect(outcome).toBeUndefined();
    expect(await checkpoints(schema)).toEqual([0, 0, 0, 0]);
    const worker = (
      await createProjectionWorker(db.pool, { schema, workerId: WORKER, leaseMs: LEASE_MS })
    )._unsafeUnwrap();
    const drained = (await worker.drain())._unsafeUnwrap();
    expect(drained.checkpoint).toBe(24);
    const { rows } = await db.pool.query<{ position: string }>(
      `SELECT position FROM ${schema}.quarantine`,
    );
    expect(rows.map((row) => Number(row.position))).toContain(2);
  });
});

describe('a worker and its passes', () => {
  /** The statements of `statements` that lock the claims of a pass, and those that lock one claim. */
  const locks = (statements: readonly string[]) => ({
    passes: statements.filter((text) => text.includes('FOR UPDATE') && text.includes('unnest(')),
    batches: statements.filter(
      (text) => text.includes('FOR UPDATE') && text.includes('WHERE partition = '),
    ),
  });

  it('catches up on a little work in every partition with one pass and no batch', async () => {
    const schema = 'pass_worker_live';
    await storeOf(schema, 8);
    const recording = recordStatements(db.pool);
    const worker = (
      await createProjectionWorker(recording.pool, { schema, workerId: WORKER, leaseMs: LEASE_MS })
    )._unsafeUnwrap();
    const caughtUp = (await worker.catchUp())._unsafeUnwrap();
    expect(caughtUp.checkpoint).toBe(24);
    const { passes, batches } = locks(recording.statements);
    expect(passes).toHaveLength(1);
    expect(batches).toHaveLength(0);
    await expectEqualsSequentialFold(db.pool, schema);
  });

  it('over a backlog, makes one pass and then batches of one partition each', async () => {
    const schema = 'pass_worker_backlog';
    // A batch of 8 over 4 partitions: 2 events of each in the pass, then batches of up to 8.
    await storeOf(schema, 24);
    const recording = recordStatements(db.pool);
    const worker = (
      await createProjectionWorker(recording.pool, {
        schema,
        workerId: WORKER,
        leaseMs: LEASE_MS,
        batchSize: 8,
      })
    )._unsafeUnwrap();
    const drained = (await worker.drain())._unsafeUnwrap();
    expect(drained.checkpoint).toBe(72);
    const { passes, batches } = locks(recording.statements);
    expect(passes).toHaveLength(1);
    expect(batches.length).toBeGreaterThanOrEqual(4);
    await expectEqualsSequentialFold(db.pool, schema);
  });
});
