/**
 * Reactors on PostgreSQL (`pg work --reactors`), against a throwaway server:
 * the same reactions as the file engine (template events once, with several
 * partitions), SQL effects exactly once, a reactor added later catching up
 * from the start or starting at the end, parking with measured delays, and
 * `effects --database` retry and skip while a worker runs; an executor never
 * claims an effect it is still running again.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineReactor } from '../../src/core/reactors/define-reactor.js';
import { retryDelayBounds } from '../../src/core/reactors/retry-policy.js';
import { createProjector } from '../../src/engine/projector.js';
import { PgEffectExecutor } from '../../src/postgres/reactors/pg-effect-executor.js';
import { migrate } from '../../src/postgres/schema/migrate.js';
import { schemaName } from '../../src/postgres/schema-name.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli/cli-helpers.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { eventually } from '../support/eventually.js';
import { HOSTILE_CORPUS } from '../support/hostile-corpus.js';
import { idMutationsArb, mutateIds } from '../support/hostile-mutations.js';
import { startHttpSink } from '../support/http-sink.js';
import { type PostgresServer, postgresDatabase } from '../support/postgres-server.js';
import { seededStoryLog, writeStoryLog } from '../support/story-log.js';

const EXAMPLE_LOG = join(ROOT, 'examples/events.ndjson');
const EVERY = join(ROOT, 'test/fixtures/reactors/every-event.mjs');
const PG_REACTORS = join(ROOT, 'test/fixtures/reactors/pg-reactors.mjs');

let server: PostgresServer;
beforeAll(async () => {
  server = await postgresDatabase();
});
afterAll(async () => {
  await server?.stop();
  await removeTempDirs();
});

/** A migrated database with `partitions` partitions and the CRM table of the fixtures. */
const freshDatabase = async (name: string, partitions = 4) => {
  const url = await server.createDatabase(name);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  await pool.query('CREATE TABLE public.crm_notes (sign_request_id bigint, position bigint)');
  expect(
    (await runCli(['pg', 'migrate', '--database', url, '--partitions', String(partitions)])).code,
  ).toBe(0);
  return { url, pool };
};

const appliedPositions = async (path: string): Promise<number[]> => {
  const applied: number[] = [];
  const projector = createProjector({ onApplied: (change) => applied.push(change.position) });
  await projector.replay({ read: (o) => readFileEventLog(path, o) });
  return applied;
};

const keysOf = async (pool: pg.Pool, reactor: string): Promise<string[]> =>
  (
    await pool.query<{ idempotency_key: string }>(
      `SELECT idempotency_key FROM signfold.effects WHERE reactor = $1 AND state = 'done' ORDER BY id`,
      [reactor],
    )
  ).rows.map((row) => row.idempotency_key);

describe('pg work --reactors', () => {
  it('reacts once to every applied event, template events included, across 4 partitions', async () => {
    const { url, pool } = await freshDatabase('every_event');
    try {
      expect((await runCli(['pg', 'import', EXAMPLE_LOG, '--database', url])).code).toBe(0);
      const work = await runCli(['pg', 'work', '--database', url, '--drain', '--reactors', EVERY]);
      expect(work.code).toBe(0);
      expect(work.stderr).toMatch(/^effects: \d+ succeeded, 0 attempts failed$/m);
      const expected = (await appliedPositions(EXAMPLE_LOG)).map((p) => `every:${p}:0`);
      const keys = await keysOf(pool, 'every');
      expect([...keys].sort()).toEqual([...expected].sort());
      const templates = await pool.query(
        `SELECT count(*)::int AS n FROM signfold.effects f JOIN signfold.events e ON e.position = f.position
          WHERE e.event_type LIKE 'template-%'`,
      );
      expect(templates.rows[0].n).toBeGreaterThan(0);
      // Again: nothing new (reactors keep their checkpoints).
      expect(
        (await runCli(['pg', 'work', '--database', url, '--drain', '--reactors', EVERY])).code,
      ).toBe(0);
      expect(await keysOf(pool, 'every')).toEqual(keys);
    } finally {
      await pool.end();
    }
  });

  it('runs SQL effects exactly once, in the projection transaction', async () => {
    const { url, pool } = await freshDatabase('sql_effects');
    const sink = await startHttpSink();
    try {
      const dir = await tempDir();
      const log = join(dir, 'events.ndjson');
      const events = seededStoryLog(21, 60);
      await writeStoryLog(log, events);
      expect((await runCli(['pg', 'import', log, '--database', url])).code).toBe(0);
      const env = { ...process.env, SIGNFOLD_SINK_URL: sink.url };
      for (let run = 0; run < 2; run += 1) {
        const work = await runCli(
          ['pg', 'work', '--database', url, '--drain', '--reactors', PG_REACTORS],
          ROOT,
          env,
        );
        expect(work.code).toBe(0);
      }
      const completions = events.filter((e) => e.event.type === 'sign-request-completed');
      const notes = await pool.query<{ position: string }>(
        'SELECT position FROM public.crm_notes ORDER BY position',
      );
      expect(notes.rows.map((row) => Number(row.position))).toEqual(
        completions.map((e) => e.position),
      );
      const rows = await pool.query(
        `SELECT state, attempts FROM signfold.effects WHERE reactor = 'crm'`,
      );
      expect(rows.rows.every((row) => row.state === 'done' && row.attempts === 1)).toBe(true);
    } finally {
      await sink.close();
      await pool.end();
    }
  });

  it('a reactor added to a projected schema catches up from the start; with --from end it starts at the end', async () => {
    const { url, pool } = await freshDatabase('late_reactor');
    try {
      const dir = await tempDir();
      const first = join(dir, 'first.ndjson');
      const events = seededStoryLog(31, 80);
      const cut = Math.floor(events.length / 2);
      await writeStoryLog(first, events.slice(0, cut));
      expect((await runCli(['pg', 'import', first, '--database', url])).code).toBe(0);
      expect((await runCli(['pg', 'work', '--database', url, '--drain'])).code).toBe(0);
      const env = (name: string) => ({ ...process.env, EVERY_NAME: name });
      const late = await runCli(
        ['pg', 'work', '--database', url, '--drain', '--reactors', EVERY],
        ROOT,
        env('late'),
      );
      expect(late.code).toBe(0);
      const ended = await runCli(
        ['pg', 'work', '--database', url, '--drain', '--reactors', EVERY, '--from', 'end'],
        ROOT,
        env('fromend'),
      );
      expect(ended.code).toBe(0);
      expect(await keysOf(pool, 'late')).toHaveLength((await appliedPositions(first)).length);
      expect(await keysOf(pool, 'fromend')).toEqual([]);
      const whole = join(dir, 'whole.ndjson');
      await writeStoryLog(whole, events);
      const stored = await pool.query<{ high: string }>(
        'SELECT max(position) AS high FROM signfold.events',
      );
      const firstHigh = Number(stored.rows[0]?.high);
      expect((await runCli(['pg', 'import', whole, '--database', url])).code).toBe(0);
      for (const name of ['late', 'fromend']) {
        expect(
          (
            await runCli(
              ['pg', 'work', '--database', url, '--drain', '--reactors', EVERY],
              ROOT,
              env(name),
            )
          ).code,
        ).toBe(0);
      }
      // PostgreSQL numbers the appended events itself: count them, and check they all are new.
      const all = await appliedPositions(whole);
      expect((await keysOf(pool, 'late')).length).toBe(all.length);
      const fromEnd = (await keysOf(pool, 'fromend')).map((key) => Number(key.split(':')[1]));
      expect(fromEnd).toHaveLength(all.filter((p) => p > cut).length);
      expect(fromEnd.every((position) => position > firstHigh)).toBe(true);
    } finally {
      await pool.end();
    }
  });

  it('parks after exactly maxAttempts with delays inside the bounds; effects retry and skip work while a worker runs', async () => {
    const { url, pool } = await freshDatabase('parking');
    let failing = true;
    const sink = await startHttpSink({
      fails: (call) => failing && call.key.startsWith('documents:'),
    });
    try {
      const dir = await tempDir();
      const log = join(dir, 'events.ndjson');
      const events = seededStoryLog(41, 16);
      await writeStoryLog(log, events);
      expect((await runCli(['pg', 'import', log, '--database', url])).code).toBe(0);
      const env = {
        ...process.env,
        SIGNFOLD_SINK_URL: sink.url,
        SINK_MAX_ATTEMPTS: '4',
        SINK_BASE_DELAY_MS: '40',
        SINK_MAX_DELAY_MS: '120',
      };
      const work = await runCli(
        ['pg', 'work', '--database', url, '--drain', '--reactors', PG_REACTORS],
        ROOT,
        env,
      );
      expect(work.code).toBe(0);
      const listed = await runCli(['effects', '--database', url, '--json']);
      expect(listed.code).toBe(0);
      const report = JSON.parse(listed.stdout);
      const completions = events.filter((e) => e.event.type === 'sign-request-completed');
      expect(report.parked).toHaveLength(completions.length);
      expect(report.parked.length).toBeGreaterThanOrEqual(2);
      const policy = { maxAttempts: 4, baseDelayMs: 40, maxDelayMs: 120 };
      for (const parked of report.parked) {
        expect(parked).toMatchObject({
          reactor: 'documents',
          attempts: 4,
          lastError: 'sink answered 500',
        });
        const calls = sink.calls.filter((call) => call.key === parked.idempotencyKey);
        expect(calls.map((call) => call.attempt)).toEqual([1, 2, 3, 4]);
        for (let n = 1; n < calls.length; n += 1) {
          const gap = (calls[n]?.at ?? 0) - (calls[n - 1]?.at ?? 0);
          const { minMs, maxMs } = retryDelayBounds(policy, n);
          // Never earlier than the policy allows; the upper bound only says the delay was not
          // ignored, with room for a worker that a loaded machine schedules late.
          expect(gap).toBeGreaterThanOrEqual(minMs - 2);
          expect(gap).toBeLessThanOrEqual(maxMs + 10_000);
        }
      }
      failing = false;
      const [first, second] = report.parked;
      const retried = await runCli([
        'effects',
        'retry',
        '--database',
        url,
        String(first.id),
        '--json',
      ]);
      expect(JSON.parse(retried.stdout)).toEqual({ changed: [first.id], refused: [] });
      const skipped = await runCli([
        'effects',
        'skip',
        '--database',
        url,
        String(second.id),
        '999999',
      ]);
      expect(skipped.code).toBe(1);
      expect(skipped.stderr).toBe('signfold: effects skip: effect 999999: no such effect\n');
      const before = sink.calls.length;
      expect(
        (
          await runCli(
            ['pg', 'work', '--database', url, '--drain', '--reactors', PG_REACTORS],
            ROOT,
            env,
          )
        ).code,
      ).toBe(0);
      expect(sink.calls.slice(before).map((call) => [call.key, call.attempt])).toEqual([
        [first.idempotencyKey, 1],
      ]);
      const after = JSON.parse((await runCli(['effects', '--database', url, '--json'])).stdout);
      const rest = report.parked.slice(2).map((p: { id: number }) => p.id);
      expect(after.parked.map((p: { id: number }) => p.id)).toEqual(rest);
      expect(after.timers).toEqual([]);
      // By filter: a dry run first, a filter that selects nothing, then every parked one.
      const edit = async (...words: string[]) =>
        JSON.parse((await runCli(['effects', ...words, '--database', url, '--json'])).stdout);
      expect(
        await edit('retry', '--reactor', 'documents', '--error', 'answered 500', '--dry-run'),
      ).toEqual({ changed: rest, refused: [], dryRun: true });
      expect(await edit('skip', '--reactor', 'reminders')).toEqual({ changed: [], refused: [] });
      expect(await edit('skip', '--parked')).toEqual({ changed: rest, refused: [] });
      expect((await edit()).parked).toEqual([]);
    } finally {
      await sink.close();
      await pool.end();
    }
  });
});

describe('the hostile corpus through pg work --reactors', () => {
  it('reacts to exactly the applied events of the corpus and of mutations of it, to no quarantined one', async () => {
    const corpus = await readFile(HOSTILE_CORPUS);
    const samples = fc.sample(idMutationsArb(corpus), { numRuns: count(2, 20), seed: 17 });
    for (const [index, mutations] of [[], ...samples].entries()) {
      const { url, pool } = await freshDatabase(`hostile_reactors_${index}`, 3);
      try {
        const dir = await tempDir();
        const log = join(dir, 'hostile.ndjson');
        await writeFile(log, mutateIds(corpus, mutations));
        expect((await runCli(['pg', 'import', log, '--database', url])).code).toBe(0);
        const work = await runCli([
          'pg',
          'work',
          '--database',
          url,
          '--drain',
          '--reactors',
          EVERY,
        ]);
        expect(work.code).toBe(0);
        const applied = Number(/(\d+) applied/.exec(work.stdout)?.[1]);
        const reacted = (await keysOf(pool, 'every')).map((key) => Number(key.split(':')[1]));
        expect(reacted).toHaveLength(applied);
        const quarantined = await pool.query<{ position: string }>(
          'SELECT position FROM signfold.quarantine',
        );
        const bad = new Set(quarantined.rows.map((row) => Number(row.position)));
        expect(reacted.filter((position) => bad.has(position))).toEqual([]);
        const parked = await pool.query("SELECT 1 FROM signfold.effects WHERE state <> 'done'");
        expect(parked.rowCount).toBe(0);
      } finally {
        await pool.end();
      }
    }
  });
});

describe('PgEffectExecutor', () => {
  it('never claims again an effect it still runs or has not written, even after its lease lapsed', async () => {
    const url = await server.createDatabase('executor_reclaim');
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    try {
      const schema = schemaName('signfold')._unsafeUnwrap();
      (await migrate(pool, { schema }))._unsafeUnwrap();
      await pool.query(
        `INSERT INTO signfold.effects (reactor, partition, position, index, idempotency_key, effect, state)
         VALUES ('slow', 0, 1, 0, 'slow:1:0', '{"type":"call"}', 'ready')`,
      );
      let starts = 0;
      let finish = (): void => undefined;
      const reactor = defineReactor({
        name: 'slow',
        react: () => [],
        execute: () => {
          starts += 1;
          return new Promise<void>((resolve) => {
            finish = resolve;
          });
        },
      });
      // No renewals: the lease lapses while the effect runs, as when a turn of
      // the loop outlasts it.
      const executor = new PgEffectExecutor(pool, {
        schema,
        workerId: 'executor-1',
        reactors: [reactor],
        leaseMs: 200,
      });
      const lapsed = async (): Promise<boolean> =>
        (
          await pool.query<{ lapsed: boolean }>(
            `SELECT lease_until < clock_timestamp() AS lapsed FROM signfold.effects`,
          )
        ).rows[0]?.lapsed === true;
      expect(await executor.claimAndStart()).toBe(1);
      expect(starts).toBe(1);
      await eventually(lapsed, 'the lease to lapse while the effect runs');
      expect(await executor.claimAndStart()).toBe(0);
      expect(starts).toBe(1);
      // Done, its outcome not written yet: not claimed (and run) again either.
      finish();
      await eventually(() => executor.unwritten === 1, 'the effect to settle');
      expect(await executor.claimAndStart()).toBe(0);
      expect(starts).toBe(1);
      await executor.flush();
      const row = await pool.query('SELECT state, attempts, lease_owner FROM signfold.effects');
      expect(row.rows).toEqual([{ state: 'done', attempts: 1, lease_owner: null }]);
      expect(executor.counts()).toEqual({ succeeded: 1, failed: 0, interrupted: 0 });
    } finally {
      await pool.end();
    }
  });
});
