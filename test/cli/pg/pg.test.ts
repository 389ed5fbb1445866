import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjector } from '../../../src/engine/projector.js';
import { openPostgresEventLog } from '../../../src/postgres/log/postgres-event-log.js';
import { readProjections } from '../../../src/postgres/read/read-projections.js';
import { readFileEventLog } from '../../../src/store/file-record-stream.js';
import { eventually } from '../../support/eventually.js';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';
import { sortedRecords } from '../../support/projection-records.js';
import {
  bare,
  CLI,
  envelope,
  ROOT,
  removeTempDirs,
  requestEvent,
  runCli,
  writeFixture,
} from '../cli-helpers.js';

const EXAMPLE = join(ROOT, 'examples/events.ndjson');

let server: PostgresServer;
let pool: pg.Pool;

beforeAll(async () => {
  server = await postgresDatabase();
  pool = new pg.Pool({ connectionString: server.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await server?.stop();
  await removeTempDirs();
});

describe('signfold pg', () => {
  it('migrate, import and work --drain project the example log as replay does', async () => {
    const url = await server.createDatabase('cli_example');
    const migrated = await runCli(['pg', 'migrate', '--database', url]);
    expect(migrated).toMatchObject({ code: 0, stderr: '' });
    expect(migrated.stdout).toBe('schema signfold migrated from version 0 to 9 (16 partitions)\n');
    expect((await runCli(['pg', 'migrate', '--database', url])).stdout).toBe(
      'schema signfold is at version 9: nothing to do\n',
    );
    const imported = await runCli(['pg', 'import', EXAMPLE, '--database', url]);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    const file = createProjector({ audit: false });
    (await file.replay({ read: (o) => readFileEventLog(EXAMPLE, o) }))._unsafeUnwrap();
    const total = file.checkpoint;
    expect(imported.stdout).toContain(`imported ${total} of ${total} records from ${EXAMPLE}`);
    const worked = await runCli([
      'pg',
      'work',
      '--database',
      url,
      '--drain',
      '--batch-size',
      '500',
    ]);
    expect(worked).toMatchObject({ code: 0, stderr: '' });
    const stats = file.stats();
    expect(worked.stdout).toBe(
      `projected up to position ${total}: ${stats.applied} applied, ${stats.noOps} no-ops, ${stats.conflicts} conflicts, ${stats.invalid} invalid\n`,
    );
    const db = new pg.Pool({ connectionString: url, max: 2 });
    try {
      const stored = (await readProjections(db))._unsafeUnwrap();
      expect(sortedRecords(stored.state)).toEqual(sortedRecords(file.state()));
    } finally {
      await db.end();
    }
  });

  it('export prints the arrays replay --json prints, and DATABASE_URL stands in for --database', async () => {
    const url = await server.createDatabase('cli_export');
    const env = { ...process.env, DATABASE_URL: url };
    const run = (args: readonly string[]) => runCli(args, ROOT, env);
    for (const args of [
      ['pg', 'migrate'],
      ['pg', 'import', EXAMPLE],
      ['pg', 'work', '--drain'],
    ]) {
      expect(await run(args)).toMatchObject({ code: 0, stderr: '' });
    }
    const exported = await run(['pg', 'export']);
    expect(exported).toMatchObject({ code: 0, stderr: '' });
    const fromTables = JSON.parse(exported.stdout);
    const fromReplay = JSON.parse((await runCli(['replay', EXAMPLE, '--json'])).stdout);
    // Equal as JSON, order and quarantine shape included (test/cli/pg/events.test.ts has more).
    for (const key of ['templates', 'signRequests', 'participants', 'quarantine']) {
      expect(fromTables[key], key).toEqual(fromReplay[key]);
    }
    expect(fromTables.checkpoint).toBe(fromReplay.checkpoint);
  });

  it('import skips lines whose delivery id is already stored, and keeps bad lines', async () => {
    const url = await server.createDatabase('cli_dedupe');
    await runCli(['pg', 'migrate', '--database', url, '--schema', 'esign']);
    const log = await writeFixture('dedupe.ndjson', [
      envelope(1, requestEvent('sign-request-sent', 10, true), 'd-1'),
      '{"broken',
      bare(requestEvent('sign-request-completed', 10, false)),
    ]);
    const first = await runCli(['pg', 'import', log, '--database', url, '--schema', 'esign']);
    expect(first.stdout).toContain('imported 3 of 3 records');
    expect(first.stdout).toContain('bad lines stored for the quarantine: 1');
    const again = await runCli(['pg', 'import', log, '--database', url, '--schema', 'esign']);
    expect(again.stdout).toContain('imported 2 of 3 records');
    expect(again.stdout).toContain('duplicates skipped (delivery id already stored): 1');
  });

  it('work without --drain follows appends (woken by NOTIFY) until SIGTERM, then exits 0', async () => {
    const url = await server.createDatabase('cli_follow');
    await runCli(['pg', 'migrate', '--database', url]);
    const db = new pg.Pool({ connectionString: url, max: 2 });
    // A poll and a heartbeat (a quarter of the lease) this slow cannot be what projects the
    // event within the wait below (30 s at most).
    const child = spawn(process.execPath, [
      CLI,
      'pg',
      'work',
      '--database',
      url,
      '--poll-interval',
      '600000',
      '--lease',
      '600000',
    ]);
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((done) => child.on('close', done));
    const checkpoint = async (): Promise<number | undefined> => {
      const { rows } = await db.query<{ position: string }>(
        'SELECT position FROM signfold.checkpoints',
      );
      return rows[0] === undefined ? undefined : Number(rows[0].position);
    };
    const waitFor = (ok: (at: number | undefined) => boolean, what: string): Promise<void> =>
      eventually(async () => ok(await checkpoint()), what);
    try {
      await waitFor((at) => at === 0, 'the first catch-up'); // drained once: now it is waiting
      const log = (await openPostgresEventLog(db))._unsafeUnwrap();
      const sent = await log.append(requestEvent('sign-request-sent', 10, true));
      await log.close();
      const position = sent._unsafeUnwrap().position;
      await waitFor((at) => at === position, 'the appended event to be projected');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stdout).toBe(
        `projected up to position ${position}: 1 applied, 0 no-ops, 0 conflicts, 0 invalid\n`,
      );
    } finally {
      child.kill('SIGKILL');
      await db.end();
    }
  });

  it('work without --drain reconnects when its connection is lost, and exits with the reason when retrying cannot help', async () => {
    const url = await server.createDatabase('cli_follow_lost');
    await runCli(['pg', 'migrate', '--database', url]);
    const db = new pg.Pool({ connectionString: url, max: 1 });
    const child = spawn(process.execPath, [CLI, 'pg', 'work', '--database', url]);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((done) => child.on('close', done));
    const until = async (pattern: RegExp): Promise<void> => {
      for (let tries = 0; tries < 400 && !pattern.test(stderr); tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(stderr).toMatch(pattern);
    };
    try {
      await eventually(
        async () => (await db.query('SELECT 1 FROM signfold.workers')).rows.length > 0,
        'the worker to register',
      );
      await db.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      // One line as the outage begins, one as it ends; never an exit, never a skip advice.
      await until(/^signfold: projecting paused: [^\n]*; reconnecting with backoff\n/);
      await until(/\nsignfold: projecting again after [0-9.]+ s \([0-9]+ retr(y|ies)\)\n$/);
      expect(child.exitCode).toBeNull();
      // The schema dropped: retrying cannot fix that, so the worker exits with the reason.
      await db.query('DROP SCHEMA signfold CASCADE');
      expect(await exited).toBe(2);
      expect(stderr).toMatch(/\nsignfold: [^\n]* failed: [^\n]*\(SQLSTATE 42P01\)\n$/);
      expect(stderr).not.toContain('pg skip');
    } finally {
      child.kill('SIGKILL');
      await db.end();
    }
  });

  it('refuses bad usage and unreachable or unmigrated databases with one line, exit 2', async () => {
    const missing = await runCli(['pg', 'work', '--drain']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^signfold: pg work: --database URL \(or DATABASE_URL\) is required \(see/,
    );
    const notUrl = await runCli(['pg', 'migrate', '--database', 'localhost']);
    expect(notUrl).toMatchObject({ code: 2 });
    expect(notUrl.stderr).toContain('--database must be a URL');
    const unknown = await runCli(['pg', 'vacuum', '--database', server.url]);
    expect(unknown.stderr).toContain("unknown subcommand 'pg vacuum'");
    const url = await server.createDatabase('cli_empty');
    const unmigrated = await runCli(['pg', 'work', '--drain', '--database', url]);
    expect(unmigrated.code).toBe(2);
    expect(unmigrated.stderr).toBe(
      'signfold: no signfold schema signfold in this database: run `signfold pg migrate` (or migrate()) first\n',
    );
    const down = await runCli(['pg', 'migrate', '--database', 'postgres://signfold@127.0.0.1:1/x']);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/^signfold: connecting to PostgreSQL failed: .*ECONNREFUSED/);
    expect(down.stderr.split('\n')).toHaveLength(2);
  });

  it('status shows each partition and the workers, as text and as JSON', async () => {
    const url = await server.createDatabase('cli_status');
    const migrated = await runCli(['pg', 'migrate', '--database', url, '--partitions', '3']);
    expect(migrated.stdout).toBe('schema signfold migrated from version 0 to 9 (3 partitions)\n');
    const log = await writeFixture('status.ndjson', [
      bare(requestEvent('sign-request-sent', 10, true)),
      bare(requestEvent('sign-request-completed', 11, false)),
      '{"broken',
    ]);
    await runCli(['pg', 'import', log, '--database', url]);
    const before = await runCli(['pg', 'status', '--database', url, '--json']);
    expect(before.code).toBe(0);
    const status = JSON.parse(before.stdout);
    expect(status).toMatchObject({ schema: 'signfold', events: 3, lastPosition: 3, checkpoint: 0 });
    expect(status.partitions).toHaveLength(3);
    expect(status.partitions[0]).toMatchObject({ partition: 0, owner: null, checkpoint: 0 });
    const lag = status.partitions.reduce(
      (sum: number, p: { lagEvents: number }) => sum + p.lagEvents,
      0,
    );
    expect(lag).toBe(3);
    const worked = await runCli(['pg', 'work', '--database', url, '--drain', '--worker-id', 'w-1']);
    expect(worked.code).toBe(0);
    const text = await runCli(['pg', 'status', '--database', url]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^schema signfold: 3 events \(last position 3, [\d.]+ MB\), 3 partitions, 0 workers alive$/,
    );
    expect(lines[1]).toBe(
      'projected up to position 3: 1 applied, 0 no-ops, 0 conflicts, 2 invalid',
    );
    expect(lines[2]).toMatch(/^partition\s+owner\s+lease\s+checkpoint\s+lag\s+lag s\s+last error$/);
    expect(lines.slice(3).map((line) => line.split(/\s+/).slice(0, 6))).toEqual([
      ['0', '-', '-', '3', '0', '0.0'],
      ['1', '-', '-', '3', '0', '0.0'],
      ['2', '-', '-', '3', '0', '0.0'],
    ]);
    const fixed = await runCli(['pg', 'migrate', '--database', url, '--partitions', '4']);
    expect(fixed.code).toBe(2);
    expect(fixed.stderr).toContain('has 3 partitions, fixed when it was created');
    const badLease = await runCli(['pg', 'work', '--database', url, '--lease', '50']);
    expect(badLease.stderr).toContain('--lease must be at least 100 (ms)');
    const badPartitions = await runCli(['pg', 'migrate', '--database', url, '--partitions', '0']);
    expect(badPartitions.stderr).toContain('--partitions must be at least 1');
  });
});
