/**
 * `signfold serve` as a real process, signalled in the middle of an open-loop load, on the file
 * log and on PostgreSQL (issue 18):
 * - SIGTERM: it stops accepting, finishes the appends in flight and exits 0 within the documented
 *   bound; every delivery that got a 2xx is stored.
 * - SIGKILL: every delivery that got a 2xx is stored exactly once; a new `serve` on the same store
 *   then takes every delivery again, answers those already stored as duplicates, and stores the
 *   others once.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLoop } from '../../bench/serve-load.js';
import { type RunningServe, startServe } from '../../bench/serve-process.js';
import { removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { throwawayPostgres } from '../support/postgres-server.js';
import {
  fileLogDeliveries,
  postgresDeliveries,
  type StoredDeliveries,
} from '../support/stored-deliveries.js';
import {
  acknowledgedIds,
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

/** The bound docs/cli.md gives `serve` to exit after SIGTERM. */
const SIGTERM_BOUND_MS = 10_000;
const RATE = 200;
const COUNT = count(400, 4_000);
/** The signal goes once this many deliveries were acknowledged. */
const AFTER = count(100, 1_000);

afterAll(removeTempDirs);
const db = throwawayPostgres(2);

/** A store `serve` runs on: its arguments and how to read it back. */
interface Store {
  readonly args: readonly string[];
  readonly read: () => Promise<StoredDeliveries>;
  readonly close: () => Promise<void>;
}

const fileStore = async (): Promise<Store> => {
  const path = join(await tempDir(), 'events.ndjson');
  return {
    args: ['--log', path],
    read: () => fileLogDeliveries(path),
    close: async () => {
      // The log must still read as a whole after the signal: no torn or bad line left behind.
      const replay = await runCli(['replay', path]);
      expect(replay.stderr).toBe('');
      expect(replay.code).toBe(0);
    },
  };
};

let databases = 0;
const postgresStore = async (): Promise<Store> => {
  databases += 1;
  const database = await freshDatabase(db, `signals_${databases}`);
  return {
    args: ['--database', database.url],
    read: () => postgresDeliveries(database.pool),
    close: database.close,
  };
};

const STORES = [
  { name: 'the file log', open: fileStore },
  { name: 'PostgreSQL', open: postgresStore },
];

/** No answer is a 500 or any status but 2xx, 503 (storage stopping) or none (connection closed). */
const expectOnlyExpectedStatuses = (results: readonly { status: number }[]): void => {
  const unexpected = results.filter((r) => ![0, 200, 202, 503].includes(r.status));
  expect(unexpected.map((r) => r.status)).toEqual([]);
};

describe.each(STORES)('serve on $name', ({ open }) => {
  it('SIGTERM during load: exits 0 within the bound, every 2xx stored', async () => {
    const store = await open();
    const serve = await startServe(store.args, { env: SECRET_ENV_VARS, startMs: 60_000 });
    const run = await loadWithSignal(serve, {
      run: 'term',
      rate: RATE,
      count: COUNT,
      after: AFTER,
      signal: 'SIGTERM',
    });
    const ended = await serve.exited;
    expect(run.signalledAt, JSON.stringify(statusCounts(run.results))).toBeDefined();
    expect({ code: ended.code, signal: ended.signal }, serve.stderr().slice(-2_000)).toEqual({
      code: 0,
      signal: null,
    });
    // Exit 0 says serve finished inside its bound (at the bound it exits 1); timed from here,
    // a busy machine adds how long the process takes to end.
    expect(ended.at - (run.signalledAt ?? 0)).toBeLessThan(SIGTERM_BOUND_MS + 15_000);
    expectOnlyExpectedStatuses(run.results);
    expectNoneLostNoneDoubled(await store.read(), run.results);
    await store.close();
  });

  it('SIGKILL during load: every 2xx stored once; a new serve answers them as duplicates', async () => {
    const store = await open();
    const killed = await startServe(store.args, { env: SECRET_ENV_VARS, startMs: 60_000 });
    const run = await loadWithSignal(killed, {
      run: 'kill',
      rate: RATE,
      count: COUNT,
      after: AFTER,
      signal: 'SIGKILL',
    });
    expect((await killed.exited).signal).toBe('SIGKILL');
    expectOnlyExpectedStatuses(run.results);
    const afterKill = await store.read();
    expectNoneLostNoneDoubled(afterKill, run.results);

    // The sender retries everything it sent; the ids already stored must not be stored again.
    let again: RunningServe | undefined;
    try {
      again = await startServe(store.args, { env: SECRET_ENV_VARS, startMs: 60_000 });
      const resent = sentIds(run.results);
      const retried = await openLoop({
        url: again.url,
        rate: RATE * 2,
        count: resent.length,
        make: (index) => signedDelivery('kill', index),
      });
      expect(statusCounts(retried)).toEqual({ 200: resent.length });
      const duplicates = retried
        .filter((r) => (JSON.parse(r.body) as { duplicate?: boolean }).duplicate === true)
        .map((r) => r.deliveryId);
      expect(duplicates.sort()).toEqual([...afterKill.counts.keys()].sort());
      const final = await store.read();
      expectNoneLostNoneDoubled(final, retried);
      expect([...final.counts.keys()].sort()).toEqual(acknowledgedIds(retried).sort());
    } finally {
      await again?.stop('SIGTERM');
    }
    await store.close();
  });
});
