import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';
import { ROOT, removeTempDirs, runCli, tempDir, writeStuckLog } from '../cli-helpers.js';

const EXAMPLE = join(ROOT, 'examples/events.ndjson');

let server: PostgresServer;
let dir: string;

beforeAll(async () => {
  server = await postgresDatabase();
  dir = await tempDir();
});

afterAll(async () => {
  await server?.stop();
  await removeTempDirs();
});

/** A migrated database holding the records of `log`, imported by `signfold pg import`. */
const databaseOf = async (name: string, log: string): Promise<string> => {
  const url = await server.createDatabase(name);
  expect((await runCli(['pg', 'migrate', '--database', url])).code).toBe(0);
  const imported = await runCli(['pg', 'import', log, '--database', url]);
  expect(imported.stderr).toBe('');
  expect(imported.code).toBe(0);
  return url;
};

/** `url` with a password: the trust authentication of the test server accepts any. */
const withPassword = (url: string): string => url.replace('signfold@', 'signfold:s3cret@');

describe('signfold report --database', () => {
  it('gives the page of the file log it was imported from, naming the database without its password', async () => {
    const url = await databaseOf('report_example', EXAMPLE);
    const fromFile = join(dir, 'file.html');
    const fromDatabase = join(dir, 'database.html');
    // One "now" for both: the clock would differ between the two runs.
    const now = ['--now', '2025-10-12T10:00:00Z'];
    expect((await runCli(['report', EXAMPLE, '--out', fromFile, ...now])).code).toBe(0);
    const result = await runCli([
      'report',
      '--database',
      withPassword(url),
      '--out',
      fromDatabase,
      ...now,
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^${url}: report written to .*database\\.html \\(3917 records, \\d+ KiB\\)\\n$`),
    );
    const page = await readFile(fromDatabase, 'utf8');
    expect(page).not.toContain('s3cret');
    // Only the name of the source differs: every figure, chart and row is the same.
    const file = (await readFile(fromFile, 'utf8')).replaceAll(EXAMPLE, 'SOURCE');
    // Command lines would name the log as a command reads it: the path, or --database and the URL.
    expect(page.replaceAll(`--database ${url}`, 'SOURCE').replaceAll(url, 'SOURCE')).toBe(file);
  });

  it('gives the page of the file for a period (--from, --to): same figures, quarantine times and delivery ids', async () => {
    const url = await databaseOf('report_period', EXAMPLE);
    const period = ['--from', '2025-10-12T08:30:00Z', '--to', '2025-10-12T09:20:00Z'];
    const fromFile = join(dir, 'period-file.html');
    const fromDatabase = join(dir, 'period-database.html');
    expect((await runCli(['report', EXAMPLE, '--out', fromFile, ...period])).code).toBe(0);
    const result = await runCli(['report', '--database', url, '--out', fromDatabase, ...period]);
    expect(result.code, result.stderr).toBe(0);
    const page = await readFile(fromDatabase, 'utf8');
    const file = (await readFile(fromFile, 'utf8')).replaceAll(EXAMPLE, 'SOURCE');
    // Command lines name the log as a command reads it: the path, or --database and the URL.
    expect(page).toContain(`signfold reconcile --database ${url} --fetch MODULE --sign-request `);
    expect(page.replaceAll(`--database ${url}`, 'SOURCE').replaceAll(url, 'SOURCE')).toBe(file);
    // The groups of the quarantine name the delivery ids the log holds.
    expect(page).toMatch(/<td[^>]*><bdi>dlv-[0-9a-f]+<\/bdi><\/td>/);
  });

  it('lists stuck requests with inspect command lines that read the same database', async () => {
    const log = await writeStuckLog('stuck.ndjson');
    const url = await databaseOf('report_stuck', log);
    const out = join(dir, 'stuck.html');
    // The log's last delivery (day 10) as "now": request 1 (day 0) is stuck, request 2 is not.
    const now = ['--now', '2025-01-11T00:00:00Z'];
    const result = await runCli(['report', '--database', withPassword(url), '--out', out, ...now]);
    expect(result.code, result.stderr).toBe(0);
    const page = await readFile(out, 'utf8');
    expect(page).toContain('data-metric="stuck.total" data-value="1"');
    const command = `signfold inspect --database ${url} --sign-request 1`;
    expect(page).toContain(command);
    const inspected = await runCli(command.split(' ').slice(1));
    expect(inspected.stderr).toBe('');
    expect(inspected.code).toBe(0);
    expect(inspected.stdout).toBe((await runCli(['inspect', log, '--sign-request', '1'])).stdout);
  });

  it('refuses a database without the schema, and LOG with --database, in one line (exit 2)', async () => {
    const empty = await server.createDatabase('report_empty');
    const out = join(dir, 'never.html');
    for (const args of [
      ['report', '--database', empty, '--out', out],
      ['report', EXAMPLE, '--database', empty, '--out', out],
      ['report', '--database', 'mysql://127.0.0.1/x', '--out', out],
      ['inspect', '--database', empty, '--sign-request', '1'],
    ]) {
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect((await runCli(['report', '--database', empty, '--out', out])).stderr).toBe(
      'signfold: no signfold schema signfold in this database: run `signfold pg migrate` (or migrate()) first\n',
    );
    await expect(readFile(out)).rejects.toThrow();
  });
});
