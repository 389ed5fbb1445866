/**
 * `signfold pg work` processes through a TCP fault proxy (and a real
 * PostgreSQL restarted and hit with `pg_terminate_backend` and held locks):
 * no worker hangs, each notices a silent connection within its query
 * deadline, reports the outage once and recovers by itself once the fault
 * ends; none advises skipping a valid event; SIGTERM ends each with exit 0
 * within 15 s whatever is in flight; the effects loop is restarted after a
 * failure and says so; and a final drain leaves the tables equal to the
 * sequential fold of the stored events (0 lost, 0 doubled). The measured
 * times are printed (docs/postgres.md quotes them). Longer faults and
 * repeats run with SIGNFOLD_STRESS=1.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { generateEvents } from '../../../bench/generate-stream.js';
import type { LogRecord } from '../../../src/engine/event-log.js';
import { importRecords } from '../../../src/postgres/log/import-events.js';
import { migrate } from '../../../src/postgres/schema/migrate.js';
import { recordsLog, recordsOf } from '../../support/engine-arbitraries.js';
import { type FaultProxy, startFaultProxy } from '../../support/fault-proxy.js';
import { expectEqualsSequentialFold } from '../../support/partition-checks.js';
import { throwawayPostgres } from '../../support/postgres-server.js';
import { CLI, ROOT, runCli } from '../cli-helpers.js';

const STRESS = process.env.SIGNFOLD_STRESS === '1';
const FAULT_REACTORS = join(ROOT, 'test/fixtures/reactors/fault-reactors.mjs');

/**
 * The workers' lease: their query deadline is then max(lease, 5 s) = 5 s on
 * the server, 7 s on the client's own timer (src/cli/postgres-pool.ts), and their
 * lock wait 2.5 s.
 */
const LEASE_MS = 2000;
/** How long a worker may take to notice a silent connection: the client deadline, a heartbeat, slack for a loaded machine. */
const NOTICE_BOUND_MS = 7000 + LEASE_MS / 4 + 8000;
/** How long a worker may take to project again once the fault ends. */
const RECOVERY_BOUND_MS = 25_000;
/** The documented shutdown bound. */
const SHUTDOWN_BOUND_MS = 15_000;
/**
 * How long the state a fault is injected into may take to reach: a deadline for a hang, not a
 * speed check. Beside a second copy of the suite, a worker with batches of one took over 30 s to
 * project the first half of its events through its proxy.
 */
const SETUP_BOUND_MS = 120_000;

const db = throwawayPostgres(8, { own: true });
beforeAll(() => {
  // The test's own connections die too (restarts, pg_terminate_backend): the next query reconnects.
  db.pool.on('error', () => undefined);
});

/** A worker process and what it printed so far. */
interface Worker {
  readonly id: string;
  readonly child: ChildProcess;
  readonly stderr: () => string;
  readonly stdout: () => string;
  readonly exited: Promise<number | null>;
  /** The workers of its test still to stop. */
  readonly running: Set<Worker>;
}

/** A test's own fault proxy and the workers it started through it. */
interface Rig {
  readonly proxy: FaultProxy;
  readonly startWorker: (schema: string, id: string, extra?: readonly string[]) => Worker;
}

/**
 * A fault proxy of the test's own, in front of the shared server, so that tests whose faults are
 * the proxy's can run side by side; once the test finished, its workers are killed and its proxy
 * closed.
 */
const rig = async ({ onTestFinished }: TestContext): Promise<Rig> => {
  const proxy = await startFaultProxy(db.server.port);
  const running = new Set<Worker>();
  onTestFinished(async () => {
    await proxy.set({ kind: 'pass' });
    for (const worker of running) worker.child.kill('SIGKILL');
    await Promise.all([...running].map((worker) => worker.exited));
    running.clear();
    await proxy.close();
  });
  return {
    proxy,
    startWorker: (schema, id, extra = []) => startWorker(proxy, running, schema, id, extra),
  };
};

const startWorker = (
  proxy: FaultProxy,
  running: Set<Worker>,
  schema: string,
  id: string,
  extra: readonly string[] = [],
): Worker => {
  const url = `postgres://signfold@127.0.0.1:${proxy.port}/postgres`;
  const child = spawn(
    process.execPath,
    [
      CLI,
      'pg',
      'work',
      '--database',
      url,
      '--schema',
      schema,
      '--lease',
      String(LEASE_MS),
      '--poll-interval',
      '200',
      '--worker-id',
      id,
      '--connect-timeout',
      '3',
      ...extra,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  let stdout = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const worker = { id, child, stderr: () => stderr, stdout: () => stdout, exited, running };
  running.add(worker);
  return worker;
};

/** Polls `check` every 100 ms until it holds; fails naming `what` after `timeoutMs`. */
const waitFor = async (
  what: string,
  timeoutMs: number,
  check: () => boolean | Promise<boolean>,
): Promise<number> => {
  const started = performance.now();
  for (;;) {
    // The test's own pool may hold connections a restart or a kill ended: a failed check is retried.
    if (await Promise.resolve(check()).catch(() => false)) return performance.now() - started;
    if (performance.now() - started > timeoutMs)
      throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

/** SIGTERM, then the exit code and how long it took. */
const terminate = async (worker: Worker): Promise<{ code: number | null; ms: number }> => {
  const started = performance.now();
  worker.child.kill('SIGTERM');
  const code = await worker.exited;
  worker.running.delete(worker);
  return { code, ms: performance.now() - started };
};

/** Whether every partition of `schema` is projected up to the newest event. */
const caughtUp = async (schema: string): Promise<boolean> => {
  const { rows } = await db.pool.query<{ done: boolean }>(
    `SELECT (SELECT min(position) FROM ${schema}.partitions)
              >= (SELECT coalesce(max(position), 0) FROM ${schema}.events) AS done`,
  );
  return rows[0]?.done === true;
};

/**
 * Whether each of `workers` is past its start (it checks the schema first, and a failure there
 * ends it: no outage to ride out yet) and in its loop: registered by a heartbeat. On a busy
 * machine one worker may still be starting when the others have caught up.
 */
const inTheirLoops = async (schema: string, workers: readonly Worker[]): Promise<boolean> => {
  const { rows } = await db.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM ${schema}.workers WHERE id = ANY($1::text[])`,
    [workers.map((worker) => worker.id)],
  );
  return Number(rows[0]?.n) === workers.length;
};

/** Every worker of `workers` in its loop, and every partition projected up to the newest event. */
const readyForTheFault = async (schema: string, workers: readonly Worker[]): Promise<boolean> =>
  (await inTheirLoops(schema, workers)) && (await caughtUp(schema));

/** Realistic events, in `parts` slices to append one after the other. */
const slices = (seed: number, signRequests: number, parts: number): LogRecord[][] => {
  const records = recordsOf(
    [...generateEvents({ seed, signRequests, duplicateRate: 0.05, reorderRate: 0.1 })].map(
      (value) => ({ kind: 'value' as const, value }),
    ),
  );
  const size = Math.ceil(records.length / parts);
  return Array.from({ length: parts }, (_, i) => records.slice(i * size, (i + 1) * size));
};

/** Appends `records` straight to the server (not through the proxy). */
const append = async (schema: string, records: readonly LogRecord[]): Promise<void> => {
  (await importRecords(db.pool, recordsLog(records, 100).read(), { schema }))._unsafeUnwrap();
};

/**
 * A new schema of `partitions` with the first half of a generated stream
 * (`seed`, 20 sign requests) appended; the second half, to append during a fault.
 */
const halfAppended = async (
  schema: string,
  partitions: number,
  seed: number,
): Promise<LogRecord[]> => {
  (await migrate(db.pool, { schema, partitions }))._unsafeUnwrap();
  const [first = [], during = []] = slices(seed, 20, 2);
  await append(schema, first);
  return during;
};

/** What no worker may ever print about a valid event. */
const SKIP_ADVICE = /signfold pg skip/;
const PAUSED = /projecting paused: /;
const AGAIN = /projecting again after /;

/** Drains what is left (directly on the server) and checks the tables against the fold. */
const finalDrain = async (schema: string): Promise<void> => {
  const drained = await runCli([
    'pg',
    'work',
    '--database',
    db.server.url,
    '--schema',
    schema,
    '--drain',
  ]);
  expect(drained.stderr).not.toMatch(SKIP_ADVICE);
  expect(drained.code).toBe(0);
  await expectEqualsSequentialFold(db.pool, schema);
};

const measured = (line: string): void => {
  console.log(`[measured] ${line}`);
};

// Faults of a test's own proxy, or of its own schema (a lock), run side by side: each test has a
// proxy and a schema of its own, and most of its time is a deadline running out (a worker's
// query deadline on a silent connection, a lock timeout). Every bound is as before, sized for a
// loaded machine.
describe.concurrent('faults of one proxy or one schema, side by side', () => {
  describe('a silent connection (sever)', () => {
    for (const workers of [1, 3]) {
      it(
        `${workers} following worker(s) notice it within the deadline and recover after it`,
        async (context) => {
          const { expect } = context;
          const { proxy, startWorker } = await rig(context);
          for (const round of STRESS ? [1, 2, 3] : [1]) {
            const schema = `sever_${workers}_${round}`;
            (await migrate(db.pool, { schema, partitions: 4 }))._unsafeUnwrap();
            const [first = [], during = [], after = []] = slices(workers * 10 + round, 40, 3);
            await append(schema, first);
            const started = Array.from({ length: workers }, (_, i) => startWorker(schema, `w${i}`));
            await waitFor('caught up before the fault', SETUP_BOUND_MS, () =>
              readyForTheFault(schema, started),
            );
            await proxy.set({ kind: 'sever' });
            await append(schema, during);
            const notice = await waitFor('every worker reports the outage', NOTICE_BOUND_MS, () =>
              started.every((w) => PAUSED.test(w.stderr())),
            ).catch((error: Error) => {
              const printed = started.map((w) => `${w.id}: ${w.stderr()}`).join('\n');
              throw new Error(`${error.message}\n${printed}`);
            });
            // A long partition (stress): the workers keep retrying, each reporting it once.
            if (STRESS) await new Promise((resolve) => setTimeout(resolve, 60_000));
            await proxy.set({ kind: 'pass' });
            const healed = performance.now();
            await waitFor('projected again after the fault', RECOVERY_BOUND_MS, () =>
              caughtUp(schema),
            );
            const recovery = performance.now() - healed;
            await append(schema, after);
            await waitFor('caught up with later appends', SETUP_BOUND_MS, () => caughtUp(schema));
            await waitFor('every worker reports the end of the outage', 10_000, () =>
              started.every((w) => AGAIN.test(w.stderr())),
            );
            measured(
              `sever, ${workers} worker(s): all noticed within ${(notice / 1000).toFixed(1)} s, projected again ${(recovery / 1000).toFixed(1)} s after the fault ended`,
            );
            for (const worker of started) {
              const text = worker.stderr();
              expect(text).not.toMatch(SKIP_ADVICE);
              // Once per outage, not once per try.
              expect(text.match(/projecting paused/g)).toHaveLength(1);
              if (workers === 1) expect(text).not.toMatch(/is now another worker's/);
            }
            for (const worker of started) {
              const { code, ms } = await terminate(worker);
              expect(code).toBe(0);
              expect(ms).toBeLessThan(SHUTDOWN_BOUND_MS);
            }
            await finalDrain(schema);
          }
        },
        STRESS ? 600_000 : 90_000,
      );
    }

    it('SIGTERM during the sever ends the worker with exit 0 within 15 s', async (context) => {
      const { expect } = context;
      const { proxy, startWorker } = await rig(context);
      const schema = 'sever_sigterm';
      const during = await halfAppended(schema, 4, 5);
      const worker = startWorker(schema, 'stopped');
      await waitFor('caught up before the fault', SETUP_BOUND_MS, () => caughtUp(schema));
      await proxy.set({ kind: 'sever' });
      // Something in flight: an append, whose batch the worker starts on the dead connection.
      await append(schema, during);
      const { code, ms } = await terminate(worker);
      measured(`SIGTERM during a sever: exit ${code} after ${(ms / 1000).toFixed(1)} s`);
      expect(code).toBe(0);
      expect(ms).toBeLessThan(SHUTDOWN_BOUND_MS);
      expect(worker.stderr()).not.toMatch(SKIP_ADVICE);
      await proxy.set({ kind: 'pass' });
      await finalDrain(schema);
    });
  });

  describe('a lock held past lock_timeout', () => {
    it('fails the batch of one event as 55P03: reported, retried, no skip advice', async (context) => {
      const { expect } = context;
      const { startWorker } = await rig(context);
      const schema = 'locked';
      const during = await halfAppended(schema, 2, 11);
      const worker = startWorker(schema, 'l0', ['--batch-size', '1']);
      await waitFor('caught up before the lock', SETUP_BOUND_MS, () => caughtUp(schema));
      const holder = new pg.Client(db.server.url);
      await holder.connect();
      try {
        // Another session writes the projection tables for a while (an operator's long transaction).
        await holder.query('BEGIN');
        await holder.query(
          `LOCK TABLE ${schema}.sign_requests, ${schema}.participants IN EXCLUSIVE MODE`,
        );
        await append(schema, during);
        await waitFor('the lock timeout is reported', NOTICE_BOUND_MS, () =>
          /projecting paused: .*lock timeout.*55P03/.test(worker.stderr()),
        );
        await holder.query('COMMIT');
      } finally {
        await holder.end();
      }
      const released = performance.now();
      await waitFor('projected after the lock is released', RECOVERY_BOUND_MS, () =>
        caughtUp(schema),
      );
      measured(
        `row lock past lock_timeout: projected again ${((performance.now() - released) / 1000).toFixed(1)} s after the lock was released`,
      );
      expect(worker.stderr()).not.toMatch(SKIP_ADVICE);
      expect(worker.child.exitCode).toBeNull();
      expect((await terminate(worker)).code).toBe(0);
      await finalDrain(schema);
    });
  });

  describe('the effects loop of pg work --reactors', () => {
    it('fails, is reported at once, restarted, and every effect runs', async (context) => {
      const { expect } = context;
      const { startWorker } = await rig(context);
      const schema = 'effects_fail';
      const during = await halfAppended(schema, 2, 13);
      const worker = startWorker(schema, 'e0', ['--reactors', FAULT_REACTORS]);
      const settled = async (): Promise<boolean> => {
        const { rows } = await db.pool.query<{ waiting: string; all: string }>(
          `SELECT count(*) FILTER (WHERE state <> 'done') AS waiting, count(*) AS all FROM ${schema}.effects`,
        );
        return (await caughtUp(schema)) && rows[0]?.waiting === '0' && Number(rows[0]?.all) > 0;
      };
      await waitFor('effects done before the fault', SETUP_BOUND_MS, settled);
      const holder = new pg.Client(db.server.url);
      await holder.connect();
      try {
        // The effects table locked past the lock timeout: the loop's claim fails (55P03).
        await holder.query('BEGIN');
        await holder.query(`LOCK TABLE ${schema}.effects IN ACCESS EXCLUSIVE MODE`);
        await append(schema, during);
        await waitFor('the effects loop reports its failure at once', NOTICE_BOUND_MS, () =>
          /effects stopped: .*restarting them/.test(worker.stderr()),
        );
        await holder.query('COMMIT');
      } finally {
        await holder.end();
      }
      const released = performance.now();
      await waitFor('every effect done after the fault', RECOVERY_BOUND_MS, settled);
      await waitFor('the restart is reported', 10_000, () =>
        /effects running again after/.test(worker.stderr()),
      );
      measured(
        `effects loop failure: every effect done ${((performance.now() - released) / 1000).toFixed(1)} s after the lock was released`,
      );
      expect(worker.stderr().match(/effects stopped/g)).toHaveLength(1);
      expect(worker.stderr()).not.toMatch(SKIP_ADVICE);
      expect(worker.child.exitCode).toBeNull();
      expect((await terminate(worker)).code).toBe(0);
      const { rows } = await db.pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${schema}.effects WHERE state <> 'done'`,
      );
      expect(rows[0]?.n).toBe('0');
    });
  });
});

// Faults of the whole server (a restart, every connection terminated) would hit the tests beside
// them: these run alone, after the others.
describe('PostgreSQL restarted (pg_ctl restart)', () => {
  it('-m fast and -m immediate: two workers survive without a supervisor', async (context) => {
    const { startWorker } = await rig(context);
    const schema = 'restarted';
    (await migrate(db.pool, { schema, partitions: 4 }))._unsafeUnwrap();
    const parts = slices(7, 40, 3);
    await append(schema, parts[0] ?? []);
    const workers = [startWorker(schema, 'r0'), startWorker(schema, 'r1')];
    await waitFor('caught up before the restarts', SETUP_BOUND_MS, () =>
      readyForTheFault(schema, workers),
    );
    for (const [i, mode] of (['fast', 'immediate'] as const).entries()) {
      const before = workers.map((w) => (w.stderr().match(AGAIN) ?? []).length);
      const restarted = performance.now();
      db.server.restart(mode);
      await waitFor('the server answers again', 30_000, async () => {
        await db.pool.query('SELECT 1');
        return true;
      });
      await append(schema, parts[i + 1] ?? []);
      await waitFor(`projected again after -m ${mode}`, RECOVERY_BOUND_MS, () => caughtUp(schema));
      measured(
        `pg_ctl restart -m ${mode}: projected again ${((performance.now() - restarted) / 1000).toFixed(1)} s after the restart began`,
      );
      for (const [j, worker] of workers.entries()) {
        expect(worker.child.exitCode).toBeNull();
        expect(worker.stderr()).not.toMatch(SKIP_ADVICE);
        // An outage the worker saw is reported as ended (a worker idle through it may see none).
        const paused = (worker.stderr().match(/projecting paused/g) ?? []).length;
        const again = (worker.stderr().match(/projecting again/g) ?? []).length;
        expect(again).toBeGreaterThanOrEqual(before[j] ?? 0);
        await waitFor('every reported outage is reported ended', 10_000, () => {
          const ended = (worker.stderr().match(/projecting again/g) ?? []).length;
          return ended >= paused && ended >= again;
        });
      }
    }
    for (const worker of workers) expect((await terminate(worker)).code).toBe(0);
    await finalDrain(schema);
  });
});

describe('pg_terminate_backend of the workers’ connections', () => {
  it('with batches of one event: no skip advice, and the workers recover', async (context) => {
    const { startWorker } = await rig(context);
    const schema = 'terminated';
    (await migrate(db.pool, { schema, partitions: 4 }))._unsafeUnwrap();
    const rounds = STRESS ? 10 : 3;
    const parts = slices(9, 30, rounds + 1);
    await append(schema, parts[0] ?? []);
    const workers = [
      startWorker(schema, 't0', ['--batch-size', '1']),
      startWorker(schema, 't1', ['--batch-size', '1']),
    ];
    await waitFor('caught up before the kills', SETUP_BOUND_MS, () =>
      readyForTheFault(schema, workers),
    );
    const admin = new pg.Client(db.server.url);
    await admin.connect();
    try {
      for (let round = 1; round <= rounds; round += 1) {
        // The workers project the new events one by one when every other session
        // (their listeners, batches, heartbeats) is killed.
        await append(schema, parts[round] ?? []);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 200));
        const killed = performance.now();
        await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'
              AND client_port IS NOT NULL`,
        );
        await waitFor('projected again after the kill', RECOVERY_BOUND_MS, () => caughtUp(schema));
        measured(
          `pg_terminate_backend round ${round}: projected again after ${((performance.now() - killed) / 1000).toFixed(1)} s`,
        );
      }
    } finally {
      await admin.end();
    }
    for (const worker of workers) {
      expect(worker.child.exitCode).toBeNull();
      expect(worker.stderr()).not.toMatch(SKIP_ADVICE);
      expect((await terminate(worker)).code).toBe(0);
    }
    await finalDrain(schema);
  });
});
