/**
 * `pg work --reactors` as processes, killed and paused: SIGKILL at random
 * moments with 1 and with 3 workers, then a drain. Every expected effect
 * succeeded at least once; a repeat carries the same idempotency key and
 * comes from a process that was killed with it in flight (at most 64 per
 * kill); nothing is parked; SQL effects ran exactly once. A worker stopped
 * with SIGSTOP loses its effects to another after the lease, and cannot
 * write over them when it resumes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_IN_FLIGHT } from '../../src/core/reactors/in-flight.js';
import { CLI, ROOT, removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { callsByKey, startHttpSink } from '../support/http-sink.js';
import { type PostgresServer, startPostgres } from '../support/postgres-server.js';
import { firedReminders, storyEvents, writeStoryLog } from '../support/reactor-logs.js';

const PG_REACTORS = join(ROOT, 'test/fixtures/reactors/pg-reactors.mjs');
const HOUR = 3600 * 1000;

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await removeTempDirs();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const startWorker = (url: string, env: NodeJS.ProcessEnv, drain: boolean): ChildProcess =>
  spawn(
    process.execPath,
    [
      CLI,
      'pg',
      'work',
      '--database',
      url,
      '--reactors',
      PG_REACTORS,
      '--lease',
      '600',
      '--poll-interval',
      '100',
      ...(drain ? ['--drain'] : []),
    ],
    { env, stdio: ['ignore', 'ignore', 'pipe'] },
  );

const closed = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.on('close', (code) => resolve(code));
  });

const prepare = async (name: string, signRequests: number) => {
  const url = await server.createDatabase(name);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  await pool.query('CREATE TABLE public.crm_notes (sign_request_id bigint, position bigint)');
  expect((await runCli(['pg', 'migrate', '--database', url, '--partitions', '4'])).code).toBe(0);
  const dir = await tempDir();
  const log = join(dir, 'events.ndjson');
  const events = storyEvents(51, signRequests);
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
      try {
        for (let round = 0; round < count(20, 50); round += 1) {
          const children = Array.from({ length: workers }, () => startWorker(url, env, true));
          await sleep(250 + Math.floor(Math.random() * 600));
          const victim = children[round % workers] as ChildProcess;
          if (victim.exitCode === null) {
            victim.kill('SIGKILL');
            killed.add(victim.pid ?? 0);
          }
          // The others drain to the end (taking over the victim's effects once their leases expire).
          expect(
            await Promise.all(children.filter((child) => child !== victim).map(closed)),
          ).toEqual(children.filter((child) => child !== victim).map(() => 0));
          await closed(victim);
        }
        expect(killed.size).toBeGreaterThan(0);
        const last = await runCli(
          ['pg', 'work', '--database', url, '--drain', '--reactors', PG_REACTORS, '--lease', '600'],
          ROOT,
          env,
        );
        expect(last.code).toBe(0);
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
            expect(killed.has(call.pid)).toBe(true);
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
        await sink.close();
        await pool.end();
      }
    },
    240_000,
  );

  it('a paused worker loses its effects to another after the lease, and cannot write over them', async () => {
    const { url, pool } = await prepare('paused', 40);
    const sink = await startHttpSink({ delayMs: 1500 });
    const env = { ...process.env, SIGNFOLD_SINK_URL: sink.url };
    const first = startWorker(url, env, false);
    let second: ChildProcess | undefined;
    try {
      for (let waited = 0; sink.calls.length === 0 && waited < 20_000; waited += 50)
        await sleep(50);
      const firstKeys = new Set(sink.calls.map((call) => call.key));
      expect(firstKeys.size).toBeGreaterThan(0);
      first.kill('SIGSTOP');
      second = startWorker(url, env, true);
      expect(await closed(second)).toBe(0);
      const taken = sink.calls.filter(
        (call) => call.pid === second?.pid && firstKeys.has(call.key),
      );
      // Everything the paused worker had claimed ran again elsewhere, with the same key.
      expect(new Set(taken.map((call) => call.key))).toEqual(firstKeys);
      first.kill('SIGCONT');
      await sleep(2500);
      first.kill('SIGTERM');
      expect(await closed(first)).toBe(0);
      // The resumed worker's late outcomes matched no lease of its own: the rows stay done once.
      const rows = await pool.query<{ state: string; attempts: number }>(
        `SELECT state, attempts FROM signfold.effects WHERE idempotency_key = ANY($1::text[])`,
        [[...firstKeys]],
      );
      expect(rows.rows.every((row) => row.state === 'done' && row.attempts === 1)).toBe(true);
    } finally {
      first.kill('SIGKILL');
      second?.kill('SIGKILL');
      await sink.close();
      await pool.end();
    }
  }, 120_000);
});
