/**
 * `signfold serve --database` when the network to PostgreSQL or PostgreSQL itself fails (issue
 * 29, item 2): a real serve process reaches a real PostgreSQL through the TCP fault proxy, under a
 * steady open loop of signed deliveries, and each fault is applied, held, and healed. Whatever the
 * fault: every delivery is answered (no hang), within the append deadline; a 503 carries
 * `Retry-After` and is counted in /metrics; no delivery answered 200 is missing from the store;
 * /readyz says 503 while appends cannot complete and 200 after; deliveries are stored again within
 * 30 s of the heal without a restart; once the senders deliver again everything not acknowledged,
 * every delivery is stored exactly once; SIGTERM then stops serve with exit 0.
 *
 * The quick cases hold each fault for 4 s with `--append-timeout 2 --connect-timeout 3`; with
 * SIGNFOLD_STRESS=1 the long ones run with serve's defaults (a 20 s blackhole, a 20 s sever).
 */
import { describe, expect, it } from 'vitest';
import { throwawayPostgres } from '../../support/postgres-server.js';
import { type FaultContext, type FaultRun, runFault } from './database-fault-run.js';

const db = throwawayPostgres(2, { own: true });
const stress = process.env.SIGNFOLD_STRESS === '1';

/** Slack on every bound for a loaded 2-core machine (HTTP, scheduling, the event loop). */
const SLACK_MS = 3000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A proxy mode held for `ms` (the fault's length), then `pass` again. */
const proxyFault =
  (kind: 'sever' | 'blackhole' | 'reset' | 'refuse', ms: number, byHand: boolean) =>
  async ({ proxy, deliverByHand }: FaultContext): Promise<undefined> => {
    await proxy.set({ kind });
    const held = sleep(ms);
    if (byHand) await deliverByHand();
    await held;
    await proxy.set({ kind: 'pass' });
    return undefined;
  };

/** `pg_terminate_backend` of every connection to the database but the asking one, three times. */
const terminateBackends = async ({ direct, name }: FaultContext): Promise<undefined> => {
  for (let round = 0; round < 3; round += 1) {
    await direct.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    await sleep(1000);
  }
  return undefined;
};

/** `pg_ctl stop -m fast`, down for `ms`, started again: a fast restart with a visible outage. */
const restart =
  (ms: number) =>
  async ({ db: database, deliverByHand }: FaultContext): Promise<number> => {
    database.server.pause();
    // pg_ctl stop -w returns once the server is down: the outage starts here, not at the call.
    const downAt = performance.now();
    const held = sleep(ms);
    await deliverByHand();
    await held;
    database.server.resume();
    return downAt;
  };

/** What every run must show, whatever the fault. */
const expectSafeAndLive = (
  run: FaultRun,
  appendTimeoutMs: number,
  { blocksTheSender = false } = {},
): void => {
  const errors = run.results.filter((r) => r.status === 0).map((r) => r.error);
  const context = `answers: ${JSON.stringify(countOf(run.results.map((r) => r.status)))}, errors: ${JSON.stringify(errors)}\n${run.stderr.slice(-1500)}`;
  // No hang: every delivery was answered, within the append deadline. (pg_ctl runs synchronously
  // in this process: while it runs the sender reads nothing, and a kept-alive connection serve
  // closed meanwhile may fail a request before it is sent. Never a timeout, and it is retried.)
  if (blocksTheSender)
    expect(
      errors.filter((e) => e === 'timeout'),
      context,
    ).toEqual([]);
  else expect(errors, context).toEqual([]);
  // Measured by serve (its log lines), not by the sender, whose own queueing and (during pg_ctl)
  // blocked event loop would count too.
  const slowest = Math.max(...run.answeredWithinMs);
  expect(run.answeredWithinMs.length).toBeGreaterThanOrEqual(run.results.length);
  expect(slowest, context).toBeLessThan(appendTimeoutMs + SLACK_MS);
  expect(
    run.results.every((r) => r.status === 200 || r.status === 503 || r.status === 0),
    context,
  ).toBe(true);
  // No 200 for a delivery that was not stored.
  const notStored = [...run.acknowledged].filter((id) => !run.storedBeforeRetry.has(id));
  expect(notStored).toEqual([]);
  // Every 503 was counted (the load's and the hand-sent ones).
  const answered503 =
    run.results.filter((r) => r.status === 503).length +
    run.manual.filter((m) => m.status === 503).length;
  expect(run.unavailableCounted).toBe(answered503);
  // Recovery without a restart.
  expect(run.storedAgainMs, context).toBeLessThan(30_000);
  expect(run.readyAgainMs, context).toBeLessThan(30_000);
  // After the senders delivered again: 0 lost, 0 doubled, nothing that was not sent.
  const lost = [...run.sent].filter((id) => !run.stored.has(id));
  const doubled = [...run.stored].filter(([, n]) => n > 1).map(([id]) => id);
  const unknown = [...run.stored.keys()].filter((id) => !run.sent.has(id));
  expect({ lost, doubled, unknown }).toEqual({ lost: [], doubled: [], unknown: [] });
  // SIGTERM stops it within the documented bound, exit 0.
  expect(run.exit.code, run.stderr.slice(-1500)).toBe(0);
  expect(run.stopMs).toBeLessThan(15_000);
};

/** While appends cannot complete: /readyz 503 within 5 s, and a delivery 503 with Retry-After. */
const expectUnavailableMeanwhile = (
  run: FaultRun,
  appendTimeoutMs: number,
  { blocksTheSender = false } = {},
): void => {
  // By when it was answered: a probe in flight as the fault began, held by it and answered 503,
  // says the outage as well as one sent after (under load the probes straddle the fault's start).
  const firstUnready = run.probes.find((p) => p.status === 503 && p.answeredAt >= run.faultAt);
  expect(firstUnready, JSON.stringify(run.probes.slice(-40))).toBeDefined();
  expect((firstUnready?.answeredAt ?? Number.POSITIVE_INFINITY) - run.faultAt).toBeLessThan(
    5000 + SLACK_MS,
  );
  // Said once per outage on stderr (not once per refused delivery), and its end too.
  const changes = run.stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { event?: string }).event)
    .filter((event) => event === 'storage-unavailable' || event === 'storage-available');
  expect(changes.length).toBeGreaterThanOrEqual(2);
  expect(changes.filter((e) => e === 'storage-unavailable').length).toBeLessThanOrEqual(5);
  expect(changes.at(-1)).toBe('storage-available');
  const [byHand] = run.manual;
  expect(byHand?.status).toBe(503);
  expect(byHand?.retryAfter).toBe('5');
  if (!blocksTheSender) expect(byHand?.ms).toBeLessThan(appendTimeoutMs + SLACK_MS);
};

const countOf = (values: readonly number[]): Record<number, number> => {
  const counts: Record<number, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
};

/** The figures a run measured, for the report in the test output. */
const summary = (label: string, run: FaultRun): string =>
  `${label}: ${JSON.stringify(countOf(run.results.map((r) => r.status)))}, ` +
  `/readyz 503 ${Math.round((run.probes.find((p) => p.status === 503 && p.at >= run.faultAt)?.answeredAt ?? Number.NaN) - run.faultAt)} ms into the fault, ` +
  `stored again ${Math.round(run.storedAgainMs)} ms and ready ${Math.round(run.readyAgainMs)} ms after the heal, ` +
  `slowest answer ${Math.round(Math.max(...run.answeredWithinMs))} ms, timeouts ${run.timeoutsCounted}, retry rounds ${run.retryRounds}, stop ${Math.round(run.stopMs)} ms, ` +
  `unanswered ${JSON.stringify(run.results.filter((r) => r.status === 0).map((r) => r.error))}`;

const QUICK = { appendTimeoutSeconds: 2, connectTimeoutSeconds: 3, rate: 20 } as const;
const QUICK_MS = QUICK.appendTimeoutSeconds * 1000;

// The faults of a run's own proxy, and pg_terminate_backend of its own database's connections,
// run side by side: each run has a database, a proxy and a serve process of its own, and most of
// its time is the fault held (4 s), the recovery and the senders delivering again. The restart
// stops the whole server: it runs alone, after them.
describe.concurrent('serve --database through network and database faults (quick)', () => {
  it('sever: connections go silent; 503 at the deadline, then recovers', async () => {
    const run = await runFault({
      db,
      name: 'sever_quick',
      ...QUICK,
      fault: proxyFault('sever', 4000, true),
    });
    console.log(summary('sever 4 s', run));
    expectSafeAndLive(run, QUICK_MS);
    expectUnavailableMeanwhile(run, QUICK_MS);
    expect(run.timeoutsCounted).toBeGreaterThan(0);
  });

  it('blackhole: bytes held both ways; 503 at the deadline, then recovers', async () => {
    const run = await runFault({
      db,
      name: 'blackhole_quick',
      ...QUICK,
      fault: proxyFault('blackhole', 4000, true),
    });
    console.log(summary('blackhole 4 s', run));
    expectSafeAndLive(run, QUICK_MS);
    expectUnavailableMeanwhile(run, QUICK_MS);
  });

  it('reset: every connection reset; 503 at once, then recovers', async () => {
    const run = await runFault({
      db,
      name: 'reset_quick',
      ...QUICK,
      fault: proxyFault('reset', 4000, true),
    });
    console.log(summary('reset 4 s', run));
    expectSafeAndLive(run, QUICK_MS);
    expectUnavailableMeanwhile(run, QUICK_MS);
  });

  it('refuse: new connections refused; nothing hangs, nothing lost', async () => {
    const run = await runFault({
      db,
      name: 'refuse_quick',
      ...QUICK,
      fault: proxyFault('refuse', 4000, false),
    });
    console.log(summary('refuse 4 s', run));
    expectSafeAndLive(run, QUICK_MS);
  });

  it("pg_terminate_backend of serve's connections: recovers, nothing lost", async () => {
    const run = await runFault({ db, name: 'terminate_quick', ...QUICK, fault: terminateBackends });
    console.log(summary('terminate x3', run));
    expectSafeAndLive(run, QUICK_MS);
  });
});

describe('serve --database through a server restart (quick)', () => {
  it('pg_ctl restart -m fast: 503 while down, then recovers', async () => {
    const run = await runFault({ db, name: 'restart_quick', ...QUICK, fault: restart(3000) });
    console.log(summary('restart -m fast, 3 s down', run));
    expectSafeAndLive(run, QUICK_MS, { blocksTheSender: true });
    expectUnavailableMeanwhile(run, QUICK_MS, { blocksTheSender: true });
  });
});

describe.runIf(stress)('serve --database through long faults, defaults (SIGNFOLD_STRESS=1)', () => {
  for (const kind of ['blackhole', 'sever'] as const) {
    it(`${kind} 20 s with the default deadline (5 s) and connect timeout (10 s)`, async () => {
      const run = await runFault({
        db,
        name: `${kind}_long`,
        rate: 20,
        fault: proxyFault(kind, 20_000, true),
      });
      console.log(summary(`${kind} 20 s, defaults`, run));
      expectSafeAndLive(run, 5000);
      expectUnavailableMeanwhile(run, 5000);
      // /readyz stays 503 for the whole outage once it said so (no 200 while appends cannot complete).
      const during = run.probes.filter(
        (p) => p.at > run.faultAt + 6000 && p.answeredAt < run.healedAt,
      );
      expect(during.filter((p) => p.status === 200)).toEqual([]);
    });
  }
});
