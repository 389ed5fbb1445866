/**
 * Several `signfold pg work` processes against a real server: 1, 2 and 4
 * drain processes equal the sequential fold; one of three followers SIGKILLed
 * again and again loses its partitions to the others within the stated bound
 * and nothing is applied twice or skipped; a worker stopped (SIGSTOP) past its
 * lease cannot write its stale batch once resumed (SIGCONT).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateEvents } from '../../bench/generate-stream.js';
import type { LogRecord } from '../../src/engine/event-log.js';
import { importRecords } from '../../src/postgres/log/import-events.js';
import { migrate } from '../../src/postgres/schema/migrate.js';
import { CLI, ROOT } from '../cli/cli-helpers.js';
import { rawStreamArb, recordsLog, recordsOf } from '../support/engine-arbitraries.js';
import { expectEqualsSequentialFold } from '../support/partition-checks.js';
import { throwawayPostgres } from '../support/postgres-server.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const STRESS = process.env.SIGNFOLD_STRESS === '1';

const db = throwawayPostgres();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const node = (args: readonly string[]): ChildProcess =>
  spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });

const work = (schema: string, extra: readonly string[]): ChildProcess =>
  node([CLI, 'pg', 'work', '--database', db.server.url, '--schema', schema, ...extra]);

const exited = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

const lineMatching = (child: ChildProcess, pattern: RegExp): Promise<string> =>
  new Promise((resolve, reject) => {
    if (child.stdout === null) return reject(new Error('no stdout'));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (pattern.test(line)) resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} before printing ${pattern}`)));
  });

/** Conflict-heavy generated records (several small worlds), with bad lines and undecodable values. */
const generatedRecords = (seed: number, worlds: number, maxLength: number): LogRecord[] =>
  recordsOf(
    fc.sample(rawStreamArb({ badLines: true, maxLength }), { numRuns: worlds, seed }).flat(),
  );

const importInto = async (schema: string, records: readonly LogRecord[]) =>
  (await importRecords(db.pool, recordsLog(records, 100).read(), { schema }))._unsafeUnwrap();

describe('several pg work --drain processes', () => {
  for (const workers of [1, 2, 4]) {
    it(`${workers} process(es) share the partitions, all exit 0, and the tables equal the fold`, async () => {
      for (const seed of STRESS ? [1, 2, 3, 4, 5] : [workers]) {
        const schema = `drain_${workers}_${seed}`;
        (await migrate(db.pool, { schema, partitions: 8 }))._unsafeUnwrap();
        await importInto(schema, generatedRecords(seed, 6, 150));
        const children = Array.from({ length: workers }, () =>
          work(schema, ['--drain', '--batch-size', '7']),
        );
        expect(await Promise.all(children.map(exited))).toEqual(Array(workers).fill(0));
        await expectEqualsSequentialFold(db.pool, schema);
        const owners = await db.pool.query(
          `SELECT count(*) AS n FROM ${schema}.partitions WHERE owner IS NOT NULL`,
        );
        expect(owners.rows[0]).toEqual({ n: '0' });
      }
    });
  }
});

describe('one of three followers SIGKILLed again and again', () => {
  it('the others take over within a lease and a heartbeat; nothing is applied twice or skipped', async () => {
    const schema = 'failover';
    const leaseMs = 800;
    // Claims expire one lease after the last renewal and are taken at the next
    // heartbeat (a quarter lease); the rest is slack for a loaded 2-core machine, where
    // the survivors and the server may wait seconds for a core. It still tells a takeover
    // at the lease from one that waits for something else (the dead worker's row is
    // cleaned up after 10 minutes).
    const bound = leaseMs + leaseMs / 4;
    const slack = 5_000;
    (await migrate(db.pool, { schema, partitions: 8 }))._unsafeUnwrap();
    // Each kill costs a lease and a heartbeat of waiting: ten in CI, sixty in the stress run.
    const kills = STRESS ? 60 : 10;
    const realistic = recordsOf(
      [
        ...generateEvents({ seed: 21, signRequests: 200, duplicateRate: 0.05, reorderRate: 0.1 }),
      ].map((value) => ({ kind: 'value' as const, value })),
    );
    const records = [...generatedRecords(77, 12, 150), ...realistic];
    const chunk = Math.ceil(records.length / kills);
    let generation = 0;
    const start = () => {
      generation += 1;
      const id = `follower-${generation}`;
      const child = work(schema, [
        '--lease',
        String(leaseMs),
        '--batch-size',
        '5',
        '--poll-interval',
        '100',
        '--worker-id',
        id,
      ]);
      return { id, child };
    };
    const workers = [start(), start(), start()];
    const takeovers: number[] = [];
    let killed = 0;
    let imported = 0;
    while (takeovers.length < kills) {
      expect(killed).toBeLessThan(kills * 2);
      const slice = records.slice(imported, imported + chunk);
      imported += slice.length;
      if (slice.length > 0) await importInto(schema, slice);
      await sleep(Math.random() * 300);
      // A random worker among those holding partitions (a fresh one may hold none yet).
      const owners = await db.pool.query<{ owner: string }>(
        `SELECT DISTINCT owner FROM ${schema}.partitions WHERE owner IS NOT NULL`,
      );
      const holding = workers.filter((w) => owners.rows.some((row) => row.owner === w.id));
      const chosen = holding[Math.floor(Math.random() * holding.length)] ?? workers[0];
      const victim = workers.indexOf(chosen as (typeof workers)[number]);
      const { id, child } = workers[victim] as (typeof workers)[number];
      const held = await db.pool.query<{ partition: number }>(
        `SELECT partition FROM ${schema}.partitions WHERE owner = $1`,
        [id],
      );
      child.kill('SIGKILL');
      killed += 1;
      const killedAt = performance.now();
      await exited(child);
      workers[victim] = start();
      const orphans = held.rows.map((row) => row.partition);
      for (;;) {
        const { rows } = await db.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM ${schema}.partitions
            WHERE partition = ANY($1::integer[]) AND (owner IS NULL OR owner = $2)`,
          [orphans, id],
        );
        if (rows[0]?.n === '0') break;
        expect(performance.now() - killedAt).toBeLessThan(bound + slack);
        await sleep(20);
      }
      if (orphans.length > 0) takeovers.push(performance.now() - killedAt);
    }
    expect(killed).toBeGreaterThanOrEqual(kills);
    if (imported < records.length) await importInto(schema, records.slice(imported));
    expect(Math.max(...takeovers)).toBeLessThan(bound + slack);
    if (process.env.SIGNFOLD_REPORT === '1') {
      const sorted = [...takeovers].sort((a, b) => a - b);
      process.stderr.write(
        `takeovers after ${killed} kills (ms): median ${Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0)}, max ${Math.round(sorted.at(-1) ?? 0)}\n`,
      );
    }
    // Let the survivors catch up, then stop them cleanly.
    const last = await db.pool.query<{ high: string }>(
      `SELECT max(position) AS high FROM ${schema}.events`,
    );
    for (let waited = 0; ; waited += 100) {
      const { rows } = await db.pool.query<{ low: string }>(
        `SELECT min(position) AS low FROM ${schema}.partitions`,
      );
      if (rows[0]?.low === last.rows[0]?.high) break;
      expect(waited).toBeLessThan(60_000);
      await sleep(100);
    }
    // A worker started by the last takeover may still be starting, before its SIGTERM handler:
    // wait until each has registered (it listens for the signal from its start on).
    for (let waited = 0; ; waited += 100) {
      const { rows } = await db.pool.query<{ id: string }>(`SELECT id FROM ${schema}.workers`);
      if (workers.every((w) => rows.some((row) => row.id === w.id))) break;
      expect(waited).toBeLessThan(60_000);
      await sleep(100);
    }
    for (const { child } of workers) child.kill('SIGTERM');
    expect(await Promise.all(workers.map(({ child }) => exited(child)))).toEqual([0, 0, 0]);
    await expectEqualsSequentialFold(db.pool, schema);
  });
});

describe('a worker stopped past its lease', () => {
  it('cannot write its stale batch once resumed, and the tables equal the fold', async () => {
    const schema = 'fenced';
    const leaseMs = 500;
    (await migrate(db.pool, { schema, partitions: 4 }))._unsafeUnwrap();
    await importInto(schema, generatedRecords(31, 4, 150));
    // It holds its first folded batch until told to go on (a line on stdin), however long the
    // takeover takes on a busy machine.
    const stopped = spawn(
      process.execPath,
      [join(FIXTURES, 'paused-worker.mjs'), db.server.url, schema, String(leaseMs)],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const lost = lineMatching(stopped, /^lost \d+$/);
    const done = lineMatching(stopped, /^done$/);
    lost.catch(() => undefined);
    done.catch(() => undefined);
    const folded = await lineMatching(stopped, /^folded \d+$/);
    stopped.kill('SIGSTOP');
    try {
      // Stopped, it renews nothing: after twice its lease, its claims have run out.
      await sleep(leaseMs * 2);
      // The other worker's own lease is not the point: long enough that a busy machine never
      // ends one of its transactions.
      const other = work(schema, ['--drain', '--lease', '60000']);
      expect(await exited(other)).toBe(0);
      await expectEqualsSequentialFold(db.pool, schema);
    } finally {
      stopped.kill('SIGCONT');
      stopped.stdin?.end('go\n');
    }
    // The paused batch was of the partition it printed; its commit is refused.
    expect(await lost).toBe(`lost ${folded.split(' ')[1]}`);
    await done;
    expect(await exited(stopped)).toBe(0);
    await expectEqualsSequentialFold(db.pool, schema);
  });
});
