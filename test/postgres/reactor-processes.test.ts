/**
 * `pg work --reactors` as processes, killed and paused: SIGKILL at random
 * moments of their work with 1 and with 3 workers, then a drain. Every
 * expected effect succeeded at least once; a repeat carries the same
 * idempotency key and comes from a process that was killed with it in flight
 * (at most 64 per kill); nothing is parked; SQL effects ran exactly once. A
 * worker stopped with SIGSTOP loses its effects to another after the lease,
 * and cannot write over them when it resumes.
 *
 * Every worker holds its leases for a minute, which no live worker loses to
 * a busy machine (it renews them every quarter of that, and a batch
 * transaction may idle that long too). The test does not wait a minute for
 * the leases of a worker it killed or stopped: it lets them run out at once
 * ({@link expireLeasesOf}), as the clock would. A short lease for everyone
 * (it was 600 ms) let a live worker that the machine starved for 600 ms lose
 * its effects to another, which then ran them again: a repeat from a process
 * nobody killed, which this test rightly refuses.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_IN_FLIGHT } from '../../src/core/reactors/in-flight.js';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { eventually } from '../support/eventually.js';
import { callsByKey, startHttpSink } from '../support/http-sink.js';
import {
  PG_REACTORS,
  type PgWorker,
  reactorsDatabase,
  sleep,
  startPgWorker,
} from '../support/pg-workers.js';
import { type PostgresServer, postgresDatabase } from '../support/postgres-server.js';
import { firedReminders } from '../support/reminder-rules.js';
import { seededStoryLog, writeStoryLog } from '../support/story-log.js';

const HOUR = 3600 * 1000;

let server: PostgresServer;
beforeAll(async () => {
  server = await postgresDatabase();
});
afterAll(async () => {
  await server?.stop();
  await removeTempDirs();
});

/** The lease of every worker here (ms): see the module comment. */
const LEASE_MS = 60_000;

const startWorker = (url: string, env: NodeJS.ProcessEnv, drain: boolean, id: string): PgWorker =>
  startPgWorker(url, { env, id, leaseMs: LEASE_MS, drain });

const running = (child: ChildProcess): boolean =>
  child.exitCode === null && child.signalCode === null;

/** Whether a worker has a connection to the database (it started working). */
const connected = async (pool: pg.Pool, id: string): Promise<boolean> =>
  (await pool.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [id]))
    .rowCount !== 0;

/**
 * Lets the leases of the workers in `ids` (killed or stopped by the test) run
 * out now rather than after `LEASE_MS`: their claims on effects, on
 * partitions and their worker row, as the clock would. A statement such a
 * worker sent just before the signal can still commit a claim afterwards, so
 * this repeats every 100 ms until the returned function stops it. Rows a
 * stopped worker's open transaction locks are left for the next round (they
 * are not waited for: that worker resumes only after the test stops this).
 */
const expireLeasesOf = (pool: pg.Pool, ids: ReadonlySet<string>): (() => Promise<void>) => {
  let stopped = false;
  const expiring = (async () => {
    while (!stopped) {
      const owners = [...ids];
      if (owners.length > 0) {
        await pool.query(
          `UPDATE signfold.effects SET lease_until = clock_timestamp()
            WHERE id IN (SELECT id FROM signfold.effects
                          WHERE lease_owner = ANY($1::text[]) AND lease_until > clock_timestamp()
                          FOR UPDATE SKIP LOCKED)`,
          [owners],
        );
        await pool.query(
          `UPDATE signfold.partitions SET lease_until = clock_timestamp()
            WHERE partition IN (SELECT partition FROM signfold.partitions
                                 WHERE owner = ANY($1::text[]) AND lease_until > clock_timestamp()
                                 FOR UPDATE SKIP LOCKED)`,
          [owners],
        );
        await pool.query(
          `UPDATE signfold.workers SET lease_until = clock_timestamp()
            WHERE id = ANY($1::text[]) AND lease_until > clock_timestamp()`,
          [owners],
        );
      }
      await sleep(100);
    }
  })();
  expiring.catch(() => undefined); // reported by the stop
  return () => {
    stopped = true;
    return expiring;
  };
};

const prepare = async (name: string, signRequests: number) => {
  const { url, pool } = await reactorsDatabase(server, name, 2);
  const dir = await tempDir();
  const log = join(dir, 'events.ndjson');
  const events = seededStoryLog(51, signRequests);
  await writeStoryLog(log, events);
  expect((await runCli(['pg', 'import', log, '--database', url])).code).toBe(0);
  return { url, pool, events };
};

describe('pg work --reactors, killed and paused', () => {
  it.each([1, 3])(
    'survives SIGKILL at random moments with %i worker(s): every effect at least once, repeats only for effects in flight at a kill, SQL exactly once',
    async (workers) => {
      const { url, pool, events } = await prepare(`killed_${workers}`, 300);
      const sink = await startHttpSink({ delayMs: 20 });
      const env = { ...process.env, SIGNFOLD_SINK_URL: sink.url };
      const killed = new Set<number>();
      const dead = new Set<string>();
      const stopExpiring = expireLeasesOf(pool, dead);
      try {
        // Each round starts its workers afresh and drains to the end: ten in CI, fifty in the
        // stress run.
        for (let round = 0; round < count(10, 50); round += 1) {
          const children = Array.from({ length: workers }, (_, i) =>
            startWorker(url, env, true, `killed-${round}-${i}`),
          );
          const victim = children[round % workers] as PgWorker;
          // A random moment of its work, however long a busy machine takes to start it.
          await eventually(
            async () => !running(victim.child) || (await connected(pool, victim.id)),
            `worker ${victim.id} to connect`,
          );
          await sleep(Math.floor(Math.random() * 600));
          const wasKilled = running(victim.child);
          if (wasKilled) {
            victim.child.kill('SIGKILL');
            killed.add(victim.child.pid ?? 0);
          }
          const victimCode = await victim.closed;
          if (wasKilled) dead.add(victim.id);
          else expect(victimCode, victim.stderr()).toBe(0);
          // The others drain to the end (taking over the victim's effects once its leases ran out).
          const others = children.filter((child) => child !== victim);
          expect(
            await Promise.all(others.map((other) => other.closed)),
            others.map((other) => other.stderr()).join('\n'),
          ).toEqual(others.map(() => 0));
        }
        expect(killed.size).toBeGreaterThan(0);
        const last = await runCli(
          [
            'pg',
            'work',
            '--database',
            url,
            '--drain',
            '--reactors',
            PG_REACTORS,
            '--lease',
            String(LEASE_MS),
          ],
          ROOT,
          env,
        );
        expect(last.code, last.stderr).toBe(0);
        await stopExpiring();
        // PostgreSQL numbers the events as the file does here (one import, no duplicates).
        const expected = [
          ...events
            .filter((e) => e.event.type === 'sign-request-completed')
            .map((e) => `documents:${e.position}:0`),
          ...firedReminders(events, 72 * HOUR).map((e) => `reminders:${e.position}:0`),
        ].sort();
        const byKey = callsByKey(sink.calls);
        expect([...byKey.keys()].sort()).toEqual(expected);
        const repeats = new Map<number, number>();
        for (const calls of byKey.values()) {
          for (const call of calls.slice(0, -1)) {
            // An effect runs again only if the process that ran it was killed (or stopped) with it in flight.
            expect(killed.has(call.pid), JSON.stringify({ killed: [...killed], calls })).toBe(true);
            repeats.set(call.pid, (repeats.get(call.pid) ?? 0) + 1);
          }
        }
        for (const n of repeats.values()) expect(n).toBeLessThanOrEqual(MAX_IN_FLIGHT);
        const states = await pool.query<{ state: string; n: number }>(
          'SELECT state, count(*)::int AS n FROM signfold.effects GROUP BY state ORDER BY state',
        );
        expect(states.rows.filter((row) => !['done', 'cancelled'].includes(row.state))).toEqual([]);
        const notes = await pool.query<{ position: string }>(
          'SELECT position FROM public.crm_notes ORDER BY position',
        );
        expect(notes.rows.map((row) => Number(row.position))).toEqual(
          events.filter((e) => e.event.type === 'sign-request-completed').map((e) => e.position),
        );
      } finally {
        await stopExpiring();
        await sink.close();
        await pool.end();
      }
    },
    // Rounds of process starts: minutes on a busy machine; only a hang comes near this.
    900_000,
  );

  it('a paused worker loses its effects to another after the lease, and cannot write over them', async () => {
    const { url, pool } = await prepare('paused', 40);
    // The paused worker's calls get no answer before it is stopped, so every one is in flight then.
    let firstPid: number | undefined;
    const sink = await startHttpSink({ hold: (call) => call.pid === firstPid });
    const env = { ...process.env, SIGNFOLD_SINK_URL: sink.url };
    // It finishes the calls in flight when it is stopped for good, rather than cutting them
    // short: its late outcomes are then certainly written, or refused.
    const first = startWorker(url, { ...env, SINK_IGNORE_SIGNAL: '1' }, false, 'paused-first');
    firstPid = first.child.pid;
    const paused = new Set<string>();
    const stopExpiring = expireLeasesOf(pool, paused);
    let second: PgWorker | undefined;
    try {
      // Caught up first, so that the other worker need not wait for a partition the paused one
      // may hold in an open transaction.
      await eventually(async () => {
        const { rows } = await pool.query<{ caught_up: boolean }>(
          `SELECT (SELECT position FROM signfold.checkpoints) >=
                  (SELECT max(position) FROM signfold.events) AS caught_up`,
        );
        return rows[0]?.caught_up === true && sink.calls.some((call) => call.pid === firstPid);
      }, 'the first worker to catch up and call the sink');
      first.child.kill('SIGSTOP');
      paused.add(first.id);
      sink.release();
      second = startWorker(url, env, true, 'paused-second');
      expect(await second.closed, second.stderr()).toBe(0);
      await stopExpiring();
      const firstKeys = new Set(
        sink.calls.filter((call) => call.pid === firstPid).map((call) => call.key),
      );
      expect(firstKeys.size).toBeGreaterThan(0);
      const taken = sink.calls.filter(
        (call) => call.pid === second?.child.pid && firstKeys.has(call.key),
      );
      // Everything the paused worker had claimed ran again elsewhere, with the same key.
      expect(new Set(taken.map((call) => call.key))).toEqual(firstKeys);
      const rowsOfFirst = async () =>
        (
          await pool.query(
            `SELECT idempotency_key, state, attempts, last_error, lease_owner, updated_at
               FROM signfold.effects WHERE idempotency_key = ANY($1::text[]) ORDER BY id`,
            [[...firstKeys]],
          )
        ).rows;
      const done = await rowsOfFirst();
      expect(done.map((row) => [row.state, row.attempts])).toEqual(done.map(() => ['done', 1]));
      first.child.kill('SIGCONT');
      first.child.kill('SIGTERM');
      expect(await first.closed, first.stderr()).toBe(0);
      // The resumed worker finished its calls and tried to write their outcomes...
      const succeeded = /effects: (\d+) succeeded/.exec(first.stderr());
      expect(Number(succeeded?.[1]), first.stderr()).toBeGreaterThanOrEqual(firstKeys.size);
      // ...which matched no lease of its own: the rows are as the other worker left them.
      expect(await rowsOfFirst()).toEqual(done);
    } finally {
      await stopExpiring();
      first.child.kill('SIGKILL');
      second?.child.kill('SIGKILL');
      sink.release();
      await sink.close();
      await pool.end();
    }
  });
});
