/**
 * `openPostgresEventLog`'s `appendTimeoutMs` (issue 29): an append on a connection gone silent
 * fails at its deadline instead of waiting for ever, the group commit abandons that connection so
 * the appends after it go on with another, and `ping()` goes through the same queue: it fails
 * while appends cannot commit and succeeds once they can. Through the TCP fault proxy.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresEventLog } from '../../../src/postgres/log/postgres-event-log.js';
import { migrate } from '../../../src/postgres/schema/migrate.js';
import { type FaultProxy, startFaultProxy } from '../../support/fault-proxy.js';
import { throwawayPostgres } from '../../support/postgres-server.js';

const db = throwawayPostgres(2);
let proxy: FaultProxy;
let pool: pg.Pool;

beforeAll(async () => {
  proxy = await startFaultProxy(db.server.port);
  const url = (await db.server.createDatabase('deadline')).replace(
    `:${db.server.port}/`,
    `:${proxy.port}/`,
  );
  pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 2000 });
  pool.on('error', () => undefined);
  (await migrate(pool))._unsafeUnwrap();
});

afterAll(async () => {
  await proxy?.close();
  await pool?.end().catch(() => undefined);
});

describe('appendTimeoutMs', () => {
  it('refuses a deadline that is not a positive integer', async () => {
    await expect(openPostgresEventLog(pool, { appendTimeoutMs: 0 })).rejects.toThrow(RangeError);
    await expect(openPostgresEventLog(pool, { appendTimeoutMs: 1.5 })).rejects.toThrow(RangeError);
  });

  it('fails a stuck append at its deadline, abandons the connection, and goes on after the heal', async () => {
    const log = (await openPostgresEventLog(pool, { appendTimeoutMs: 1000 }))._unsafeUnwrap();
    expect((await log.append({ type: 'template-deleted' }, { deliveryId: 'd-1' })).isOk()).toBe(
      true,
    );
    expect((await log.ping()).isOk()).toBe(true);
    await proxy.set({ kind: 'sever' });
    const started = performance.now();
    // Two appends in flight: the second queues behind the first's stuck group and still ends in time.
    const [first, second] = await Promise.all([
      log.append({ type: 'template-deleted' }, { deliveryId: 'd-2' }),
      log.append({ type: 'template-deleted' }, { deliveryId: 'd-3' }),
    ]);
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(3000);
    for (const result of [first, second]) {
      // A `timeout`, not a `database` refusal: its outcome is unknown.
      expect(result.isErr() && result.error).toMatchObject({ kind: 'timeout', timeoutMs: 1000 });
      expect(result.isErr() && result.error.message).toMatch(/no commit within 1 s/);
    }
    const pinged = await log.ping();
    expect(pinged.isErr()).toBe(true);
    await proxy.set({ kind: 'pass' });
    // The severed connections are abandoned one group at a time; a new one works at once.
    const until = performance.now() + 15_000;
    let stored = await log.append({ type: 'template-deleted' }, { deliveryId: 'd-2' });
    while (stored.isErr() && performance.now() < until) {
      stored = await log.append({ type: 'template-deleted' }, { deliveryId: 'd-2' });
    }
    expect(stored.isOk()).toBe(true);
    expect((await log.ping()).isOk()).toBe(true);
    await log.close();
    const { rows } = await pool.query<{ delivery_id: string }>(
      'SELECT delivery_id FROM signfold.events ORDER BY position',
    );
    // d-2 once (its first attempt never reached the server), d-3 never (nor did its attempt).
    expect(rows.map((row) => row.delivery_id)).toEqual(['d-1', 'd-2']);
  });
});
