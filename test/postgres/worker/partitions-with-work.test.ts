import { describe, expect, it } from 'vitest';
import { openPostgresEventLog } from '../../../src/postgres/log/postgres-event-log.js';
import { partitionsWithWork } from '../../../src/postgres/worker/partitions-with-work.js';
import { events } from '../../../src/testing/index.js';
import { oneEventSchema } from '../../support/one-event-schema.js';
import { throwawayPostgres } from '../../support/postgres-server.js';

const db = throwawayPostgres(3);

const WORKER = 'sweep-test-worker';
const LEASE_MS = 60_000;

const oneEvent = (schema: string) => oneEventSchema(db.pool, schema, WORKER, LEASE_MS);

const checkpoints = async (schema: string): Promise<Record<number, number>> => {
  const { rows } = await db.pool.query<{ partition: number; position: string }>(
    `SELECT partition, position FROM ${schema}.partitions ORDER BY partition`,
  );
  return Object.fromEntries(rows.map((row) => [row.partition, Number(row.position)]));
};

describe('partitionsWithWork', () => {
  it('advances the partitions with no new event to the newest position and names the one with an event', async () => {
    const schema = 'sweep_one';
    const { name, claims, own, position } = await oneEvent(schema);
    const behind = await partitionsWithWork(db.pool, name, WORKER, claims, LEASE_MS);
    expect([...behind]).toEqual([own]);
    const expected = Object.fromEntries([0, 1, 2, 3].map((p) => [p, p === own ? 0 : position]));
    expect(await checkpoints(schema)).toEqual(expected);
    // Nothing new: nothing behind, nothing moves.
    await db.pool.query(`UPDATE ${schema}.partitions SET position = $1`, [position]);
    expect((await partitionsWithWork(db.pool, name, WORKER, claims, LEASE_MS)).size).toBe(0);
  });

  it('names every partition after a template event, which every partition folds', async () => {
    const schema = 'sweep_template';
    const { name, claims } = await oneEvent(schema);
    const log = (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
    (await log.append(events.templateActivated({ templateId: 3 })))._unsafeUnwrap();
    const behind = await partitionsWithWork(db.pool, name, WORKER, claims, LEASE_MS);
    expect([...behind].sort()).toEqual([0, 1, 2, 3]);
    expect(Object.values(await checkpoints(schema))).toEqual([0, 0, 0, 0]);
  });

  it('moves no checkpoint of a partition claimed by another worker meanwhile', async () => {
    const schema = 'sweep_fenced';
    const { name, claims, own } = await oneEvent(schema);
    const other = [0, 1, 2, 3].find((p) => p !== own) ?? -2;
    await db.pool.query(
      `UPDATE ${schema}.partitions SET owner = 'someone-else', epoch = epoch + 1 WHERE partition = $1`,
      [other],
    );
    const behind = await partitionsWithWork(db.pool, name, WORKER, claims, LEASE_MS);
    // Named as behind: its batch finds the claim lost and says so.
    expect(behind.has(other)).toBe(true);
    expect((await checkpoints(schema))[other]).toBe(0);
  });
});
