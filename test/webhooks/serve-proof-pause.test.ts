/**
 * A paused `signfold serve` (SIGSTOP in the middle of an open-loop load, SIGCONT a while later: a
 * VM freeze, a debugger, a swapped-out host), on the file log and on PostgreSQL. The senders' time
 * limits end the requests sent to the frozen process instead of hanging; once it runs again it
 * works through what arrived meanwhile and answers again (a delivery sent until one is answered),
 * then answers new deliveries within the senders' limit; the senders' retries of what timed out
 * are stored once: no delivery acknowledged is lost, none is stored twice, and it still stops
 * cleanly on SIGTERM.
 *
 * How long the resumed process takes to catch up is not asserted: the requests that queued while
 * it was stopped are all answered (or stored for senders that gave up) before the newer ones, and
 * on a busy machine that takes seconds. The late deliveries are measured from the moment it
 * answers again, not from SIGCONT.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type LoadResult, openLoop } from '../../bench/serve-load.js';
import { type RunningServe, startServe } from '../../bench/serve-process.js';
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
/** Deliveries sent once it answers again (at `RATE`, each limited to `TIMEOUT_MS`). */
const LATE = RATE / 2;
/** How long a delivery sent to catch the resumed process answering may wait (one attempt). */
const PROBE_TIMEOUT_MS = 5_000;
/** How long it may take to answer again after SIGCONT: a bound on a hang, not a speed. */
const ANSWERING_WITHIN_MS = 60_000;
/** Rounds of retries of what timed out (each retry limited to 10 s) before the test gives up. */
const RETRY_ROUNDS = 5;

afterAll(removeTempDirs);
const db = throwawayPostgres(2);

/**
 * Sends deliveries `first`, `first + 1`… one at a time (each limited to {@link PROBE_TIMEOUT_MS})
 * until one is acknowledged; fails after {@link ANSWERING_WITHIN_MS}. Resolves with every
 * attempt, the acknowledged one last (those that timed out may have been stored too).
 */
const untilAnswering = async (serve: RunningServe, first: number): Promise<LoadResult[]> => {
  const attempts: LoadResult[] = [];
  const until = performance.now() + ANSWERING_WITHIN_MS;
  for (let index = first; performance.now() < until; index += 1) {
    const [result] = await openLoop({
      url: serve.url,
      rate: 1,
      count: 1,
      timeoutMs: PROBE_TIMEOUT_MS,
      make: () => signedDelivery('pause', index),
    });
    if (result === undefined) throw new Error('the probe loop sent nothing');
    attempts.push({ ...result, index });
    if (acknowledged(result)) return attempts;
    // Connection refused or reset at once: try again shortly, not in a tight loop.
    if (result.ms < 50) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    `no answer within ${ANSWERING_WITHIN_MS} ms of asking after SIGCONT: ${JSON.stringify(statusCounts(attempts))}`,
  );
};

/**
 * Sends again, as the senders would, every delivery of `results` that got no answer, until each
 * is acknowledged (at most {@link RETRY_ROUNDS} rounds). Resolves with every retry sent.
 */
const retryUntilAcknowledged = async (
  serve: RunningServe,
  results: readonly LoadResult[],
): Promise<LoadResult[]> => {
  const retries: LoadResult[] = [];
  let missing = results.filter((r) => r.status === 0).map((r) => r.index);
  for (let round = 0; round < RETRY_ROUNDS && missing.length > 0; round += 1) {
    const indexes = missing;
    const sent = await openLoop({
      url: serve.url,
      rate: RATE,
      count: indexes.length,
      make: (i) => signedDelivery('pause', indexes[i] ?? -1),
    });
    // Every retry is answered 200, or times out on a busy machine: never refused or an error.
    const otherwise = sent.filter((r) => r.status !== 200 && r.error !== 'timeout');
    expect(otherwise.map((r) => `${r.status} ${r.error ?? r.body}`)).toEqual([]);
    retries.push(...sent.map((r) => ({ ...r, index: indexes[r.index] ?? -1 })));
    missing = sent.filter((r) => r.status === 0).map((r) => indexes[r.index] ?? -1);
  }
  expect(missing, `still unanswered after ${RETRY_ROUNDS} rounds of retries`).toEqual([]);
  return retries;
};

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
    const serve = await startServe(store.args, { env: SECRET_ENV_VARS, startMs: 60_000 });
    try {
      const started = performance.now();
      let resume = () => {};
      const resumed = new Promise<void>((resolve) => {
        resume = resolve;
      });
      const run = await loadWithSignal(serve, {
        run: 'pause',
        rate: RATE,
        count: COUNT,
        after: RATE / 2,
        timeoutMs: TIMEOUT_MS,
        act: () => {
          serve.child.kill('SIGSTOP');
          setTimeout(() => {
            serve.child.kill('SIGCONT');
            resume();
          }, PAUSE_MS);
        },
      });
      const { results } = run;
      // Bounded: the loop's schedule plus one time limit, whatever the frozen process did (and
      // whatever a busy machine adds to the schedule: this is no speed target).
      expect(performance.now() - started).toBeLessThan(
        (COUNT / RATE) * 1_000 + TIMEOUT_MS + 30_000,
      );
      const counts = statusCounts(results);
      expect(Object.keys(counts).sort(), JSON.stringify(counts)).toEqual(['0', '200']);
      expect(results.filter((r) => r.status === 0).every((r) => r.error === 'timeout')).toBe(true);

      // It answers again once it has worked through what queued while it was stopped.
      await resumed;
      const probes = await untilAnswering(serve, COUNT);
      // Then new deliveries are answered within the senders' limit (most of them at least: on a
      // loaded machine a few may still time out; their retries below must all be answered).
      const first = COUNT + probes.length;
      const late = (
        await openLoop({
          url: serve.url,
          rate: RATE,
          count: LATE,
          timeoutMs: TIMEOUT_MS,
          make: (i) => signedDelivery('pause', first + i),
        })
      ).map((r) => ({ ...r, index: first + r.index }));
      expect(late.filter(acknowledged).length, JSON.stringify(statusCounts(late))).toBeGreaterThan(
        LATE / 2,
      );

      // The senders retry what timed out; the frozen requests may have been stored meanwhile.
      const sent = [...results, ...probes, ...late];
      const retried = await retryUntilAcknowledged(serve, sent);
      const stored = await store.read();
      expectNoneLostNoneDoubled(stored, [...sent, ...retried]);
      expect([...stored.counts.keys()].sort()).toEqual(sentIds(sent).sort());
    } finally {
      serve.child.kill('SIGCONT');
      const ended = await serve.stop('SIGTERM');
      expect(ended.code).toBe(0);
      await store.close();
    }
  });
});
