/**
 * `signfold pg rebuild`, piece by piece: usage errors; an interrupted
 * rebuild resumed (and one made with other upcasters started over); two
 * processes sharing the rebuild's partitions; a switch postponed while a
 * rebuild worker is stopped with SIGSTOP, then done; and the rows reactors
 * must react to again consumed exactly once although workers are killed in
 * the middle of their catch-up.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.js';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';
import {
  envelope,
  ROOT,
  removeTempDirs,
  requestEvent,
  runCli,
  tempDir,
  templateEvent,
} from '../cli-helpers.js';
import {
  expectExportEqualsReplay,
  type Modules,
  startCli,
  writeModules,
} from './rebuild-support.js';

const REPO_EXAMPLE = join(ROOT, 'examples/events.ndjson');
/** A database URL nothing answers at: usage errors come before any connection. */
const BOGUS = 'postgres://127.0.0.1:1/x';
/** A schema name of 56 characters: its `_rebuild` twin would have 64. */
const LONG = 'a'.repeat(56);
/** An upcasters module whose default export is no array. */
const BAD_UPCASTERS = join(await tempDir(), 'bad.mjs');
await writeFile(BAD_UPCASTERS, 'export default 1;\n');

let server: PostgresServer;
let modules: Modules;

beforeAll(async () => {
  server = await postgresDatabase();
  modules = await writeModules();
});

afterAll(async () => {
  await server?.stop();
  await removeTempDirs();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A database with the example log imported. */
const importedDatabase = async (name: string): Promise<{ url: string; pool: pg.Pool }> => {
  const url = await server.createDatabase(name);
  for (const args of [
    ['pg', 'migrate', '--database', url],
    ['pg', 'import', REPO_EXAMPLE, '--database', url],
  ]) {
    expect(await runCli(args)).toMatchObject({ code: 0 });
  }
  return { url, pool: new pg.Pool({ connectionString: url, max: 2 }) };
};

/** `pg rebuild --switch` under the test's upcasters. */
const switchRebuild = (url: string) =>
  runCli(['pg', 'rebuild', '--database', url, '--upcasters', modules.upcasters, '--switch']);

/**
 * A database whose 120 requests were reacted to, then rebuilt and switched under upcasters that
 * make 60 more positions applicable: 60 rows of `reactor_redo` wait for the reactors.
 */
const redoDatabase = async (name: string): Promise<string> => {
  const url = await server.createDatabase(name);
  const lines = [envelope(1, templateEvent('template-activated'), 't')];
  for (let i = 0; i < 120; i += 1) {
    const id = 7000 + i;
    lines.push(envelope(lines.length + 1, requestEvent('sign-request-sent', id, true), `s${i}`));
    const last = i % 2 === 0 ? 'sign-request-expired' : 'sign-request-declined';
    lines.push(envelope(lines.length + 1, requestEvent(last, id, false), `e${i}`));
  }
  const log = join(await tempDir(), `${name}.ndjson`);
  await writeFile(log, `${lines.join('\n')}\n`);
  for (const args of [
    ['pg', 'migrate', '--database', url],
    ['pg', 'import', log, '--database', url],
    ['pg', 'work', '--database', url, '--reactors', modules.reactors, '--drain'],
  ]) {
    const run = await runCli(args);
    expect(run.code, run.stderr).toBe(0);
  }
  const switched = await switchRebuild(url);
  expect(switched.code, switched.stderr).toBe(0);
  expect(switched.stdout).toContain('60 newly applicable positions (60 to react to again)');
  return url;
};

const rebuildProgress = async (pool: pg.Pool): Promise<{ sum: number; min: number }> => {
  const { rows } = await pool.query<{ sum: string | null; min: string | null }>(
    `SELECT sum(position) AS sum, min(position) AS min FROM signfold_rebuild.partitions`,
  );
  return { sum: Number(rows[0]?.sum ?? 0), min: Number(rows[0]?.min ?? 0) };
};

const hasRebuild = async (pool: pg.Pool): Promise<boolean> =>
  (await pool.query(`SELECT to_regclass('signfold_rebuild.partitions') IS NOT NULL AS ok`)).rows[0]
    .ok === true;

// Each test has a database of its own (the usage test none) and its own processes: they run
// side by side. Most of their time is waiting (a switch postponed after its 10 s bound, a slow
// upcaster, workers killed after a delay), which the others fill. Their waits are conditions with bounds far
// beyond a loaded machine's needs, and the kills they time only come earlier when it is busy.
describe.concurrent('pg rebuild', () => {
  it.for([
    {
      usage: 'no --database',
      args: ['pg', 'rebuild'],
      env: { ...process.env, DATABASE_URL: '' },
      answer: {
        code: 2,
        stderr: expect.stringMatching(
          /^signfold: pg rebuild: --database URL \(or DATABASE_URL\) is required/,
        ),
      },
    },
    {
      usage: '--drain',
      args: ['pg', 'rebuild', '--database', BOGUS, '--drain'],
      answer: { code: 2 },
    },
    {
      usage: '--batch-size 0',
      args: ['pg', 'rebuild', '--database', BOGUS, '--batch-size', '0'],
      answer: { code: 2, stderr: expect.stringContaining('--batch-size must be at least 1') },
    },
    {
      usage: 'upcasters that are no array',
      args: ['pg', 'rebuild', '--database', BOGUS, '--upcasters', BAD_UPCASTERS],
      answer: {
        code: 2,
        stderr: `signfold: pg rebuild: ${BAD_UPCASTERS} must export an array of upcasters as its default export\n`,
      },
    },
    {
      usage: 'a schema too long to rebuild beside',
      args: ['pg', 'rebuild', '--database', BOGUS, '--schema', LONG],
      answer: {
        code: 2,
        stderr: `signfold: schema ${LONG} is too long to rebuild beside: ${LONG}_rebuild must be at most 63 characters\n`,
      },
    },
  ] as { usage: string; args: string[]; env?: NodeJS.ProcessEnv; answer: object }[])(
    'refuses bad usage ($usage) with one line and exit 2, before touching a database',
    async ({ args, env, answer }, { expect }) => {
      expect(await runCli(args, undefined, env)).toMatchObject(answer);
    },
  );

  it('resumes an interrupted rebuild, starts over under other upcasters, refuses a schema it did not make', async ({
    expect,
  }) => {
    const { url, pool } = await importedDatabase('resume');
    try {
      // SIGTERM: a clean stop, its partitions given back at once.
      const stopped = startCli([
        'pg',
        'rebuild',
        '--database',
        url,
        '--batch-size',
        '20',
        '--worker-id',
        'r0',
      ]);
      await eventually(
        async () => (await hasRebuild(pool)) && (await rebuildProgress(pool)).sum > 0,
        'the rebuild to make progress',
      );
      stopped.child.kill('SIGTERM');
      const stop = await stopped.closed;
      expect(stop.code, stop.stderr).toBe(0);
      expect(stop.stderr).toMatch(
        /\nsignfold: stopped; signfold_rebuild is kept \(not caught up yet\): run signfold pg rebuild again to resume\n$/,
      );
      expect(
        (await pool.query('SELECT 1 FROM signfold_rebuild.partitions WHERE owner IS NOT NULL'))
          .rowCount,
      ).toBe(0);
      const first = startCli([
        'pg',
        'rebuild',
        '--database',
        url,
        '--batch-size',
        '20',
        '--lease',
        '1000',
        '--worker-id',
        'r1',
      ]);
      await eventually(
        async () => (await hasRebuild(pool)) && (await rebuildProgress(pool)).sum > 0,
        'the first rebuild to make progress',
      );
      first.child.kill('SIGKILL');
      await first.closed;
      const kept = await rebuildProgress(pool);
      expect(kept.min).toBeLessThan(3917);

      const resumed = await runCli(['pg', 'rebuild', '--database', url, '--worker-id', 'r1']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toBe(
        'resuming the rebuild of signfold in signfold_rebuild (no upcasters)\n',
      );
      // The counts replay gives for the example log (docs/postgres.md, quick start).
      expect(resumed.stdout).toBe(
        'built signfold_rebuild: projected up to position 3917: 3839 applied, 66 no-ops, 6 conflicts, 6 invalid; switch with signfold pg rebuild --switch\n',
      );

      // The old projection, by which the upcast event is quarantined.
      expect((await runCli(['pg', 'work', '--database', url, '--drain'])).code).toBe(0);
      const other = await switchRebuild(url);
      expect(other.code, other.stderr).toBe(0);
      expect(other.stderr).toBe(
        'signfold_rebuild was built with other upcasters (none): dropped; rebuilding signfold in signfold_rebuild (16 partitions, upcasters expired-as-declined)\n',
      );
      expect(other.stdout).toMatch(
        /^switched schema signfold to the rebuilt tables at position 3917: 3917 events, 16 partitions, 1 newly applicable position \(0 to react to again\);/,
      );
      expect(await hasRebuild(pool)).toBe(false);
      await expectExportEqualsReplay(url, REPO_EXAMPLE, modules.upcasters);

      // A schema of that name that pg rebuild did not make is never dropped.
      expect((await runCli(['pg', 'migrate', '--database', url, '--schema', 'other'])).code).toBe(
        0,
      );
      await pool.query('CREATE SCHEMA other_rebuild; CREATE TABLE other_rebuild.precious (x int)');
      expect(await runCli(['pg', 'rebuild', '--database', url, '--schema', 'other'])).toMatchObject(
        {
          code: 2,
          stderr:
            'signfold: schema other_rebuild exists and is not a rebuild of other made by signfold pg rebuild: drop it, or rebuild another schema\n',
        },
      );
      expect((await pool.query('SELECT count(*) FROM other_rebuild.precious')).rowCount).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it('shares the rebuild between two processes', async ({ expect }) => {
    const { url, pool } = await importedDatabase('shared');
    try {
      const owners = new Set<string>();
      let watching = true;
      const watcher = (async () => {
        while (watching) {
          if (await hasRebuild(pool)) {
            const { rows } = await pool
              .query<{ owner: string | null }>(
                'SELECT DISTINCT owner FROM signfold_rebuild.partitions WHERE owner IS NOT NULL',
              )
              .catch(() => ({ rows: [] as { owner: string | null }[] }));
            for (const row of rows) if (row.owner !== null) owners.add(row.owner);
          }
          await sleep(20);
        }
      })();
      const args = (id: string) => [
        'pg',
        'rebuild',
        '--database',
        url,
        '--upcasters',
        modules.upcasters,
        '--batch-size',
        '25',
        '--lease',
        '1000',
        '--worker-id',
        id,
      ];
      const [a, b] = await Promise.all([runCli(args('a')), runCli(args('b'))]);
      watching = false;
      await watcher;
      for (const run of [a, b]) {
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toMatch(/^built signfold_rebuild: projected up to position 3917: /);
      }
      expect([...owners].sort()).toEqual(['a', 'b']);
      const switched = await switchRebuild(url);
      expect(switched.code, switched.stderr).toBe(0);
      expect(switched.stderr).toBe(
        'resuming the rebuild of signfold in signfold_rebuild (upcasters expired-as-declined)\n',
      );
      await expectExportEqualsReplay(url, REPO_EXAMPLE, modules.upcasters);
    } finally {
      await pool.end();
    }
  });

  it('postpones the switch while a rebuild worker is stopped, and switches once it goes on', async ({
    expect,
  }) => {
    const { url, pool } = await importedDatabase('paused');
    // An upcaster that applies to nothing and, with SLOW_UPCAST_MS, takes that long per record:
    // the paused worker is stopped before it can have projected the new events. It blocks its
    // thread without spinning (Atomics.wait), leaving the cores to the other processes.
    const slow = join(await tempDir(), 'slow.mjs');
    await writeFile(
      slow,
      `const ms = Number(process.env.SLOW_UPCAST_MS ?? 0);
const cell = new Int32Array(new SharedArrayBuffer(4));
export default [{ name: 'slow', from: () => { if (ms > 0) Atomics.wait(cell, 0, 0, ms); return false; }, to: (w) => w }];
`,
    );
    const built = await runCli(['pg', 'rebuild', '--database', url, '--upcasters', slow]);
    expect(built.code, built.stderr).toBe(0);
    const more = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) =>
        envelope(
          i + 1,
          requestEvent('sign-request-sent', 9000 + from + i, true),
          `more-${from + i}`,
        ),
      );
    const appended = join(await tempDir(), 'more.ndjson');
    await writeFile(appended, `${more(0, 30).join('\n')}\n`);
    expect((await runCli(['pg', 'import', appended, '--database', url])).code).toBe(0);
    // Its claims outlast the test's waits: nobody takes its partitions over while it is stopped.
    const paused = startCli(
      [
        'pg',
        'rebuild',
        '--database',
        url,
        '--upcasters',
        slow,
        '--lease',
        '60000',
        '--worker-id',
        'paused',
      ],
      { ...process.env, SLOW_UPCAST_MS: '200' },
    );
    try {
      await eventually(async () => {
        const { rows } = await pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM signfold_rebuild.partitions WHERE owner = 'paused'`,
        );
        return Number(rows[0]?.n) === 16;
      }, 'the worker to hold every partition');
      paused.child.kill('SIGSTOP');
      expect((await rebuildProgress(pool)).min).toBe(3917);
      const switching = startCli([
        'pg',
        'rebuild',
        '--database',
        url,
        '--upcasters',
        slow,
        '--switch',
        '--lease',
        '1000',
      ]);
      await eventually(
        () => switching.stderr().includes('signfold: switch postponed: partition '),
        'the switch to be postponed',
        { deadlineMs: 60_000 },
      );
      expect(switching.stderr()).toMatch(
        /signfold: switch postponed: partition \d+ of signfold_rebuild was at position 3917, not \d+, after 10 s; appends went on; trying again in 1\.0 s\n/,
      );
      // Appends are not held up between two tries.
      const one = join(await tempDir(), 'one.ndjson');
      await writeFile(one, `${more(30, 1).join('\n')}\n`);
      expect((await runCli(['pg', 'import', one, '--database', url])).code).toBe(0);
      paused.child.kill('SIGCONT');
      const switched = await switching.closed;
      expect(switched.code, switched.stderr).toBe(0);
      expect(switched.stdout).toMatch(
        /^switched schema signfold to the rebuilt tables at position 3948: 3948 events, /,
      );
      const ended = await paused.closed;
      expect(ended.code, ended.stderr).toBe(0);
      // It either finished what was stored when it started, or found its tables switched.
      expect(
        /^built signfold_rebuild: /.test(ended.stdout) ||
          ended.stderr.includes(
            'signfold pg rebuild: signfold_rebuild was switched into signfold or dropped by another pg rebuild; this worker stops\n',
          ),
        ended.stdout + ended.stderr,
      ).toBe(true);
    } finally {
      paused.child.kill('SIGCONT');
      paused.child.kill('SIGKILL');
      await pool.end();
    }
  });

  it('consumes the redo rows exactly once although workers are killed during their catch-up', async ({
    expect,
  }) => {
    const url = await redoDatabase('redo');
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    try {
      const redoLeft = async (): Promise<number> =>
        Number((await pool.query('SELECT count(*) AS n FROM signfold.reactor_redo')).rows[0].n);
      const left: number[] = [];
      const worker = (env: NodeJS.ProcessEnv) =>
        startCli(
          [
            'pg',
            'work',
            '--database',
            url,
            '--upcasters',
            modules.upcasters,
            '--reactors',
            modules.reactors,
            '--drain',
            '--lease',
            '1000',
            '--worker-id',
            'redo',
          ],
          { ...process.env, ...env },
        );
      for (const delay of [100, 300, 600, 1000, 1500]) {
        const killed = worker({ SLOW_REACT_MS: '3' });
        await sleep(delay);
        killed.child.kill('SIGKILL');
        await killed.closed;
        left.push(await redoLeft());
      }
      // Killed with every row still there at first: the catch-up was cut short at least once.
      expect(left[0]).toBe(60);
      const last = await worker({}).closed;
      expect(last.code, last.stderr).toBe(0);
      expect(await redoLeft()).toBe(0);
      const { rows: terminal } = await pool.query<{ position: string }>(
        `SELECT position FROM signfold.events
          WHERE event_type IN ('sign-request-declined', 'sign-request-expired') ORDER BY position`,
      );
      const { rows: effects } = await pool.query<{ position: string; n: string }>(
        `SELECT position, count(*) AS n FROM signfold.effects GROUP BY position ORDER BY position`,
      );
      expect(effects.filter((row) => Number(row.n) !== 1)).toEqual([]);
      expect(effects.map((row) => Number(row.position))).toEqual(
        terminal.map((row) => Number(row.position)),
      );
    } finally {
      await pool.end();
    }
  });

  it('drains the redo rows of a partition another worker held, once its lease lapsed', async ({
    expect,
  }) => {
    const url = await redoDatabase('redo_held');
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    try {
      // Another worker holds one partition with rows to redo, for 3 s more, and does nothing.
      const { rows } = await pool.query<{ partition: number }>(
        `UPDATE signfold.partitions SET owner = 'elsewhere', epoch = epoch + 1,
                lease_until = clock_timestamp() + interval '3 seconds'
          WHERE partition = (SELECT min(partition) FROM signfold.reactor_redo)
          RETURNING partition`,
      );
      expect(rows).toHaveLength(1);
      const run = await runCli([
        'pg',
        'work',
        '--database',
        url,
        '--upcasters',
        modules.upcasters,
        '--reactors',
        modules.reactors,
        '--drain',
      ]);
      expect(run.code, run.stderr).toBe(0);
      const left = await pool.query('SELECT count(*)::int AS n FROM signfold.reactor_redo');
      expect(left.rows[0].n).toBe(0);
      const { rows: effects } = await pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM signfold.effects GROUP BY position HAVING count(*) <> 1',
      );
      expect(effects).toEqual([]);
    } finally {
      await pool.end();
    }
  });
});
