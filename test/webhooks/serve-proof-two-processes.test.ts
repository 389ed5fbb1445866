/**
 * Two `signfold serve` processes on one PostgreSQL database, and the same deliveries sent to both
 * at once (a sender retrying on another node behind a load balancer, say; issue 18): 0 lost, 0
 * doubled. Each delivery is stored exactly once, both processes acknowledge it, and exactly one of
 * the two answers says it stored it (the other, that it was a duplicate).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openLoop } from '../../bench/serve-load.js';
import { startServe } from '../../bench/serve-process.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { throwawayPostgres } from '../support/postgres-server.js';
import { postgresDeliveries } from '../support/stored-deliveries.js';
import { SECRET_ENV_VARS, signedDelivery, statusCounts } from './fixtures/serve-deliveries.js';
import { expectNoneLostNoneDoubled, freshDatabase } from './fixtures/serve-under-load.js';

const COUNT = count(300, 3_000);
const RATE = 200;

const db = throwawayPostgres(2);
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Whether an answer says the delivery was stored before (by the other process, here). */
const isDuplicate = (body: string): boolean =>
  (JSON.parse(body) as { duplicate?: unknown }).duplicate === true;

describe('two serve processes on one PostgreSQL', () => {
  it('store every delivery sent to both at once exactly once, and both acknowledge it', async () => {
    const database = await freshDatabase(db, 'two_processes');
    closers.push(database.close);
    const [first, second] = await Promise.all([
      startServe(['--database', database.url], { env: SECRET_ENV_VARS, startMs: 60_000 }),
      startServe(['--database', database.url], { env: SECRET_ENV_VARS, startMs: 60_000 }),
    ]);
    closers.push(
      () => first.stop(),
      () => second.stop(),
    );
    // The same deliveries, in the same order, at the same instants: every one races.
    const make = (index: number) => signedDelivery('pair', index);
    const [toFirst, toSecond] = await Promise.all([
      openLoop({ url: first.url, rate: RATE, count: COUNT, make }),
      openLoop({ url: second.url, rate: RATE, count: COUNT, make }),
    ]);
    expect(statusCounts(toFirst)).toEqual({ 200: COUNT });
    expect(statusCounts(toSecond)).toEqual({ 200: COUNT });
    const stored = await postgresDeliveries(database.pool);
    expectNoneLostNoneDoubled(stored, [...toFirst, ...toSecond]);
    expect(stored.records).toBe(COUNT);
    const storedTwice = toFirst.filter(
      (answer, index) => !isDuplicate(answer.body) && !isDuplicate(toSecond[index]?.body ?? '{}'),
    );
    const storedByNone = toFirst.filter(
      (answer, index) => isDuplicate(answer.body) && isDuplicate(toSecond[index]?.body ?? '{}'),
    );
    expect(storedTwice.map((a) => a.deliveryId)).toEqual([]);
    expect(storedByNone.map((a) => a.deliveryId)).toEqual([]);
    const [firstEnd, secondEnd] = await Promise.all([first.stop(), second.stop()]);
    expect([firstEnd.code, secondEnd.code]).toEqual([0, 0]);
  });
});
