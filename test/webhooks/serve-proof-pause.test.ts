/**
 * A paused `signfold serve` (SIGSTOP in the middle of an open-loop load, SIGCONT a while later: a
 * VM freeze, a debugger, a swapped-out host), on the file log and on PostgreSQL. The senders' time
 * limits end the requests sent to the frozen process instead of hanging; once it runs again it
 * answers new deliveries at once, and the senders' retries of what timed out are stored once: no
 * delivery acknowledged is lost, none is stored twice, and it still stops cleanly on SIGTERM.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLoop } from '../../bench/serve-load.js';
import { startServe } from '../../bench/serve-process.js';
import { removeTempDirs, tempDir } from '../cli/cli-helpers.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { throwawayPostgres } from '../support/postgres-server.js';
import {
  fileLogDeliveries,
  postgresDeliveries,
  type StoredDeliveries,
} from '../support/stored-deliveries.js';
import {
  acknowledged,
  SECRET_ENV_VARS,
  sentIds,
  signedDelivery,
  statusCounts,
} from './fixtures/serve-deliveries.js';
import {
  expectNoneLostNoneDoubled,
  freshDatabase,
  loadWithSignal,
} from './fixtures/serve-under-load.js';

const RATE = 100;
const PAUSE_MS = count(2_500, 6_000);
/** Each sender gives up on a request after this long. */
const TIMEOUT_MS = 1_000;
/** About 1 s before the pause, the pause, 2 s after it. */
const COUNT = Math.round((RATE * (1_000 + PAUSE_MS + 2_000)) / 1_000);

afterAll(removeTempDirs);
const db = throwawayPostgres(2);

const STORES: {
  name: string;
  open: () => Promise<{
    args: string[];
    read: () => Promise<StoredDeliveries>;
    close: () => Promise<void>;
  }>;
}[] = [
  {
    name: 'the file log',
    open: async () => {
      const path = join(await tempDir(), 'events.ndjson');
      return { args: ['--log', path], read: () => fileLogDeliveries(path), close: async () => {} };
    },
  },
  {
    name: 'PostgreSQL',
    open: async () => {
      const database = await freshDatabase(db, 'paused');
      return {
        args: ['--database', database.url],
        read: () => postgresDeliveries(database.pool),
        close: database.close,
      };
    },
  },
];

describe.each(STORES)('serve on $name, paused with SIGSTOP during load', ({ open }) => {
  it('times the senders out, answers again after SIGCONT, loses and doubles nothing', async () => {
    const store = await open();
    const serve = await startServe(store.args, { env: SECRET_ENV_VARS });
    let resumedAt = Number.POSITIVE_INFINITY;
    try {
      const started = performance.now();
      const run = await loadWithSignal(serve, {
        run: 'pause',
        rate: RATE,
        count: COUNT,
        after: RATE / 2,
        timeoutMs: TIMEOUT_MS,
        act: () => {
          serve.child.kill('SIGSTOP');
          setTimeout(() => {
            resumedAt = performance.now();
            serve.child.kill('SIGCONT');
          }, PAUSE_MS);
        },
      });
      const { results } = run;
      // Bounded: the loop's schedule plus one time limit, whatever the frozen process did.
      expect(performance.now() - started).toBeLessThan((COUNT / RATE) * 1_000 + TIMEOUT_MS + 3_000);
      const counts = statusCounts(results);
      expect(Object.keys(counts).sort(), JSON.stringify(counts)).toEqual(['0', '200']);
      expect(results.filter((r) => r.status === 0).every((r) => r.error === 'timeout')).toBe(true);
      // Sent well after SIGCONT: answered again within the senders' 1 s (most of them at least:
      // on a loaded machine a few may still time out; the retries below must all be answered).
      const late = results.filter((r) => r.sentAt > resumedAt + 500);
      expect(late.length).toBeGreaterThan(RATE / 2);
      expect(late.filter(acknowledged).length).toBeGreaterThan(late.length / 2);

      // The senders retry what timed out; the frozen requests may have been stored meanwhile.
      const timedOut = results.filter((r) => r.status === 0).map((r) => r.index);
      const retried = await openLoop({
        url: serve.url,
        rate: RATE,
        count: timedOut.length,
        make: (i) => signedDelivery('pause', timedOut[i] ?? -1),
      });
      expect(statusCounts(retried)).toEqual({ 200: timedOut.length });
      const stored = await store.read();
      expectNoneLostNoneDoubled(stored, [...results, ...retried]);
      expect([...stored.counts.keys()].sort()).toEqual(sentIds(results).sort());
    } finally {
      serve.child.kill('SIGCONT');
      const ended = await serve.stop('SIGTERM');
      expect(ended.code).toBe(0);
      await store.close();
    }
  });
});
