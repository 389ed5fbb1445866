/**
 * `signfold serve` when an append never ends: the PostgreSQL backends serving it are frozen
 * (SIGSTOP, as a hung database host would be) while a complete delivery waits for its insert, and
 * serve gets SIGTERM. The delivery is answered 503 at the append deadline (docs/cli.md: 5 s by
 * default), never 2xx, the group commit abandons the frozen connection, and serve stops within
 * its 10 s bound with exit 0. (A body that stops arriving is cut after a grace instead:
 * test/cli/serve/shutdown.test.ts.)
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openLoop } from '../../bench/serve-load.js';
import { startServe } from '../../bench/serve-process.js';
import { metricValue } from '../cli/serve/serve-process.js';
import { eventually } from '../support/eventually.js';
import { throwawayPostgres } from '../support/postgres-server.js';
import { SECRET_ENV_VARS, signedDelivery, statusCounts } from './fixtures/serve-deliveries.js';
import { freshDatabase } from './fixtures/serve-under-load.js';

const BOUND_MS = 10_000;
const APPEND_TIMEOUT_MS = 5_000;

const db = throwawayPostgres(2, { own: true });
const frozen: number[] = [];
afterAll(() => {
  for (const pid of frozen.splice(0)) process.kill(pid, 'SIGCONT');
});

/** The backends of `url`'s database other than the one asking: serve's connections. */
const backendsOf = async (url: string): Promise<number[]> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
};

describe('serve stopped while an append hangs', () => {
  it('answers 503 at the append deadline, never acknowledges, and exits 0 within the bound', async () => {
    const database = await freshDatabase(db, 'stuck_append');
    await database.close();
    const serve = await startServe(['--database', database.url], {
      env: SECRET_ENV_VARS,
      startMs: 60_000,
    });
    const make = (index: number) => signedDelivery('stuck', index);
    // One delivery first, so serve holds an idle connection that the next append will use.
    const warm = await openLoop({ url: serve.url, rate: 10, count: 1, make });
    expect(statusCounts(warm)).toEqual({ 200: 1 });
    const backends = await backendsOf(database.url);
    expect(backends.length).toBeGreaterThan(0);
    for (const pid of backends) {
      process.kill(pid, 'SIGSTOP');
      frozen.push(pid);
    }
    const hanging = openLoop({
      url: serve.url,
      rate: 10,
      count: 1,
      timeoutMs: 30_000,
      make: (index) => make(index + 1),
    });
    // The delivery is in progress (its append waits on the frozen backend) before the signal.
    await eventually(
      async () =>
        (await metricValue(new URL(serve.url).origin, 'signfold_webhook_requests_in_flight')) === 1,
      'the delivery to be in progress',
    );
    const signalled = performance.now();
    serve.child.kill('SIGTERM');
    const ended = await Promise.race([
      serve.exited,
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error(`no exit 60 s after SIGTERM:\n${serve.stderr().slice(-2_000)}`)),
          60_000,
        ),
      ),
    ]).finally(() => serve.child.kill('SIGKILL'));
    const took = ended.at - signalled;
    expect(ended.code, serve.stderr().slice(-1_000)).toBe(0);
    expect(took).toBeLessThan(BOUND_MS);
    const [answer] = await hanging;
    expect(answer?.status).toBe(503);
    expect(answer?.ms).toBeGreaterThanOrEqual(APPEND_TIMEOUT_MS - 100);
    expect(answer?.ms).toBeLessThan(APPEND_TIMEOUT_MS + 3_000);
  });
});
