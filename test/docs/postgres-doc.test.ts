/**
 * docs/postgres.md is a contract: its quick start prints what it shows, its
 * code snippet prints what its comments say, and every SQL block runs on the
 * example log (the rebuild block rebuilds the very same tables).
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjector } from '../../src/engine/projector.js';
import { readProjections } from '../../src/postgres/read/read-projections.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { ROOT, runCli } from '../cli/cli-helpers.js';
import { withBuiltImports } from '../support/built-imports.js';
import { type PostgresServer, postgresDatabase } from '../support/postgres-server.js';
import { sortedRecords } from '../support/projection-records.js';

const DOC = await readFile(join(ROOT, 'docs/postgres.md'), 'utf8');
const blocks = (lang: string): string[] =>
  [...DOC.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] ?? '');

let server: PostgresServer;
let pool: pg.Pool;
let scratch: string | undefined;

beforeAll(async () => {
  server = await postgresDatabase();
  pool = new pg.Pool({ connectionString: await server.createDatabase('doc_example'), max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await server?.stop();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

describe('docs/postgres.md', () => {
  it('quick start prints what the page shows (but the import speed)', async () => {
    const url = await server.createDatabase('doc_quick_start');
    const commands = (blocks('sh')[1] ?? '')
      .split('\n')
      .filter((line) => line.startsWith('signfold pg '))
      .map((line) => line.replace('"$DATABASE_URL"', url).split(' ').slice(1));
    expect(commands.map((args) => args[1])).toEqual(['migrate', 'import', 'work']);
    let printed = '';
    for (const args of commands) {
      const run = await runCli(args);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      printed += run.stdout;
    }
    const speed = / in [\d.]+ s \(\d+ records\/s\)/;
    const shown = blocks('text')[0] ?? '';
    expect(printed.replace(speed, '')).toBe(shown.replace(speed, ''));
  });

  it('the code snippet prints what its comments say', async () => {
    const code = blocks('js')[0] ?? '';
    const expected = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
    expect(expected).toHaveLength(3);
    // Inside the project so that `pg` resolves from its node_modules.
    await mkdir(join(ROOT, 'node_modules/.cache'), { recursive: true });
    scratch = await mkdtemp(join(ROOT, 'node_modules/.cache/signfold-doc-'));
    const file = join(scratch, 'snippet.mjs');
    await writeFile(file, withBuiltImports(code));
    const env = { ...process.env, DATABASE_URL: await server.createDatabase('doc_snippet') };
    const run = spawnSync(process.execPath, [file], { env, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trimEnd().split('\n')).toEqual(expected);
  });

  describe('on the example log', () => {
    const url = (): string => pool.options.connectionString ?? '';
    beforeAll(async () => {
      for (const args of [['migrate'], ['import', 'examples/events.ndjson'], ['work', '--drain']]) {
        expect((await runCli(['pg', ...args, '--database', url()])).code).toBe(0);
      }
    });

    // The queries; the recipes (BEGIN … COMMIT) are run by their own tests.
    const queries = blocks('sql').filter((sql) => sql.startsWith('SELECT'));

    it('has the queries it shows', () => {
      expect(queries.length).toBeGreaterThanOrEqual(6);
    });

    it.each(queries.map((sql) => [sql.split('\n')[0] ?? '', sql] as const))(
      'runs: %s',
      async (_, sql) => {
        // pg rejects on any error: a renamed column or table fails here.
        const { fields } = await pool.query(sql);
        expect(fields.length).toBeGreaterThan(0);
      },
    );

    it('counts requests by company and status as the in-memory fold does', async () => {
      const file = createProjector({ audit: false });
      const example = join(ROOT, 'examples/events.ndjson');
      (await file.replay({ read: (o) => readFileEventLog(example, o) }))._unsafeUnwrap();
      const byStatus = new Map<string, number>();
      for (const request of file.state().signRequests.values()) {
        if (request.deleted) continue;
        const key = `${request.companyId}:${request.status}`;
        byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
      }
      const { rows } = await pool.query<{ company_id: string; status: string; requests: string }>(
        queries[0] ?? '',
      );
      expect(
        new Map(rows.map((row) => [`${row.company_id}:${row.status}`, Number(row.requests)])),
      ).toEqual(byStatus);
    });

    it('the rebuild recipe rebuilds the same tables', async () => {
      const before = (await readProjections(pool))._unsafeUnwrap();
      const rebuild = blocks('sql').find((sql) => sql.includes('TRUNCATE')) ?? '';
      await pool.query(rebuild);
      expect((await pool.query('SELECT count(*) FROM signfold.sign_requests')).rows).toEqual([
        { count: '0' },
      ]);
      const worked = await runCli(['pg', 'work', '--drain', '--database', url()]);
      expect(worked.code).toBe(0);
      const after = (await readProjections(pool))._unsafeUnwrap();
      expect(sortedRecords(after.state)).toEqual(sortedRecords(before.state));
      expect(after.quarantine).toEqual(before.quarantine);
      expect(after.checkpoint).toBe(before.checkpoint);
    });
  });
});
