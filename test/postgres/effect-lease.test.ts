/**
 * An effect is never executed by a worker whose lease has lapsed. A `pg work --reactors` worker
 * (lease 1.5 s) is stopped with SIGSTOP at the worst moment: its claim of ready effects has
 * committed on the server, but it has not read the answer, so nothing of them has started. It stays
 * stopped past its lease while another worker claims the lapsed effects and runs them all; then it
 * is resumed (SIGCONT). Each effect key is executed exactly once, none by the resumed worker.
 *
 * The moment is made, not hoped for: the test holds a lock on the effects table that the idle
 * worker's next claim waits for, makes the effects ready under that lock, stops the worker, and
 * commits. The effects come from the real pipeline (the story log projected with the reactors),
 * kept unclaimable meanwhile by a trigger that parks every effect made ready.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
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
import { seededStoryLog, writeStoryLog } from '../support/story-log.js';

const SHORT_LEASE_MS = 1500;

let server: PostgresServer;
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = await postgresDatabase();
});
afterAll(async () => {
  for (const child of children) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
  await server?.stop();
  await removeTempDirs();
});

/** A worker of {@link startPgWorker}, killed after the file if still there. */
const startWorker = (
  url: string,
  env: NodeJS.ProcessEnv,
  id: string,
  leaseMs: number,
  drain: boolean,
): PgWorker => {
  const worker = startPgWorker(url, { env, id, leaseMs, drain });
  children.push(worker.child);
  return worker;
};

describe('pg work --reactors stopped between its claim and the execution', () => {
  it('does not execute what it claimed once its lease lapsed: every effect key runs exactly once', async () => {
    const { url, pool } = await reactorsDatabase(server, 'effect_lease', 3);
    const sink = await startHttpSink({});
    const env = { ...process.env, SIGNFOLD_SINK_URL: sink.url };
    const locker = await pool.connect();
    try {
      await pool.query(`
        CREATE FUNCTION public.park_ready() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.state = 'ready' THEN NEW.state := 'parked'; END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER park_ready BEFORE INSERT OR UPDATE ON signfold.effects
          FOR EACH ROW EXECUTE FUNCTION public.park_ready();`);
      const log = join(await tempDir(), 'events.ndjson');
      await writeStoryLog(log, seededStoryLog(7, 40));
      expect((await runCli(['pg', 'import', log, '--database', url])).code).toBe(0);
      // Projects and enqueues every effect (parked by the trigger), runs none, and exits.
      const prepared = await runCli(
        ['pg', 'work', '--database', url, '--drain', '--reactors', PG_REACTORS],
        ROOT,
        env,
      );
      expect(prepared.code, prepared.stderr).toBe(0);
      await pool.query('DROP TRIGGER park_ready ON signfold.effects');
      const parked = await pool.query<{ id: string }>(
        "SELECT id FROM signfold.effects WHERE state = 'parked'",
      );
      expect(parked.rowCount).toBeGreaterThan(10);
      expect(sink.calls).toEqual([]);

      const first = startWorker(url, env, 'lease-first', SHORT_LEASE_MS, false);
      // Idle (nothing ready), it claims every poll: its next claim waits for this lock.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE signfold.effects IN EXCLUSIVE MODE');
      await eventually(async () => {
        const { rows } = await pool.query(
          `SELECT 1 FROM pg_stat_activity
            WHERE application_name = 'lease-first' AND wait_event_type = 'Lock'
              AND query LIKE '%SET lease_owner%'`,
        );
        return rows.length > 0;
      }, 'the first worker to wait for the lock with its claim');
      await locker.query("UPDATE signfold.effects SET state = 'ready' WHERE state = 'parked'");
      first.child.kill('SIGSTOP');
      await locker.query('COMMIT');
      // The claim commits on the server; the stopped worker has its answer unread.
      await eventually(async () => {
        const { rows } = await pool.query(
          "SELECT 1 FROM signfold.effects WHERE lease_owner = 'lease-first'",
        );
        return rows.length > 0;
      }, 'the stopped worker to hold claims');
      const claimed = await pool.query<{ idempotency_key: string }>(
        "SELECT idempotency_key FROM signfold.effects WHERE lease_owner = 'lease-first'",
      );
      // Past the lease, by the server's clock.
      await sleep(SHORT_LEASE_MS + 500);
      await eventually(async () => {
        const { rows } = await pool.query(
          `SELECT 1 FROM signfold.effects
            WHERE lease_owner = 'lease-first' AND lease_until > clock_timestamp()`,
        );
        return rows.length === 0;
      }, 'the stopped worker’s leases to lapse');

      const second = startWorker(url, env, 'lease-second', 60_000, true);
      expect(await second.closed, second.stderr()).toBe(0);
      const before = sink.calls.length;
      const ran = new Set(sink.calls.map((call) => call.key));
      for (const row of claimed.rows) expect(ran.has(row.idempotency_key)).toBe(true);

      first.child.kill('SIGCONT');
      // Time to read its answer and start what it claimed, were it to; then stopped for good.
      await sleep(1500);
      first.child.kill('SIGTERM');
      expect(await first.closed, first.stderr()).toBe(0);
      const firstPid = first.child.pid;
      expect(sink.calls.filter((call) => call.pid === firstPid)).toEqual([]);
      expect(sink.calls.length).toBe(before);
      const byKey = callsByKey(sink.calls);
      expect([...byKey.values()].filter((calls) => calls.length !== 1)).toEqual([]);
      const states = await pool.query<{ state: string }>(
        "SELECT DISTINCT state FROM signfold.effects WHERE state NOT IN ('done', 'scheduled', 'cancelled')",
      );
      expect(states.rows).toEqual([]);
    } finally {
      locker.release();
      await sink.close();
      await pool.end();
    }
  }, 120_000);
});
