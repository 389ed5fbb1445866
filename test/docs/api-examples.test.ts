/**
 * The `@example` blocks of the doc comments (shown in the API reference) run:
 * each is extracted from its source file and run with node in a scratch
 * directory against the built package, and its output is checked. Examples
 * that import `pg` get a throwaway PostgreSQL server in `DATABASE_URL`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withBuiltImports } from '../support/built-imports.js';
import { type PostgresServer, postgresDatabase } from '../support/postgres-server.js';

const ROOT = join(import.meta.dirname, '../..');
const scratch: string[] = [];
let server: PostgresServer | undefined;
afterAll(async () => {
  await server?.stop();
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
});
/** A fresh database for an example that needs one (the server starts once). */
const databaseFor = async (name: string): Promise<string> => {
  server ??= await postgresDatabase();
  return server.createDatabase(`example_${name.toLowerCase()}`);
};

interface Example {
  readonly where: string;
  readonly name: string;
  readonly code: string;
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );

/** Every `@example` block with the name of the export its comment documents. */
const examples: Example[] = sourceFiles(join(ROOT, 'src')).flatMap((file) => {
  const text = readFileSync(file, 'utf8');
  const found: Example[] = [];
  const pattern =
    /@example\n \* ```ts\n((?: \*.*\n)*?) \* ```\n(?: \*.*\n)* \*\/\nexport (?:const|function\*?|async function) (\w+)/g;
  for (const match of text.matchAll(pattern)) {
    const code = (match[1] ?? '').replace(/^ \* ?/gm, '');
    found.push({ where: relative(ROOT, file), name: match[2] ?? '', code });
  }
  return found;
});

/** What each example prints. */
const EXPECTED_OUTPUT: Readonly<Record<string, string>> = {
  decodeEvent: 'signRequestName missing member "signRequestName" for participant-signed\n',
  decodeEventJson: 'template-deleted 7\n',
  reduce: 'active\n',
  fold: "1 [ '2: invalid-transition' ]\n",
  createProjector: '1 1\n',
  openFileEventLog: 'appended\n',
  compareSignRequest: "[ 'status: projection says sent, service says completed' ]\n",
  loadSignRequest: '1\n',
  buildEvent: 'participant-signed Ada Lovelace\n',
  openPostgresEventLog: 'true\n',
  formatDecodeError: 'rejected: companyId: missing member "companyId" for template-deleted\n',
  parseLogLine: '8 2025-06-01T12:00:00.000Z\n9 invalid JSON:\n',
  getTemplate: 'active undefined\n',
  getSignRequest: 'completed NDA for Ada\n',
  getParticipant: 'Ada Lovelace viewed 1\n',
  listTemplates: "[ 'NDA: active', 'Lease: inactive' ]\n",
  listSignRequests: "[ '2 sent', '1 declined' ]\n",
  listParticipants: "2\n[ 'Grace signed' ]\n",
  findSignRequests: '[ 2 ]\n3\n',
  participantsAwaitingAction: "[ 'Ada Lovelace' ]\n",
  templateStats: '100 3 1 1 0.5\n',
  countSignRequestsByStatus: '{ draft: 0, sent: 0, completed: 1, declined: 0, deleted: 1 }\n',
  stateAsOf: 'sent\n',
  takeSnapshot: '1 2 2\n',
  restoreProjector: 'snapshot-invalid\n',
  createWebhookHandler: '200 {"position":1,"duplicate":false}\n',
  signWebhookBody: '64\n',
  jsonText: 'true\n',
  handleNodeRequest: '',
  createReadHandler: '200 {"signRequests":[],"next":null}\n',
  createHealthHandler: '200 {"status":"ready"}\n',
  nodeListener: '200 {"status":"ok"}\n',
};

const runnable = (code: string): string => withBuiltImports(code);

describe('doc comments', () => {
  it('never end a line of prose with a stray ` *` (it shows in the API reference)', () => {
    const stray = sourceFiles(join(ROOT, 'src')).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => /^\s*(?:\/\*\*|\*)\s*\S.* \*$/.test(line))
        .map((line) => `${relative(ROOT, file)}: ${line.trim()}`),
    );
    expect(stray).toEqual([]);
  });
});

describe('@example blocks', () => {
  it('cover the main entry points', () => {
    const names = examples.map((example) => example.name);
    for (const name of Object.keys(EXPECTED_OUTPUT)) expect(names).toContain(name);
  });

  it.each(examples.map((example) => [example.name, example] as const))(
    '%s runs and prints what it says',
    async (name, example) => {
      // Inside the project so that `pg` resolves from its node_modules.
      await mkdir(join(ROOT, 'node_modules/.cache'), { recursive: true });
      const dir = await mkdtemp(join(ROOT, 'node_modules/.cache/signfold-example-'));
      scratch.push(dir);
      const file = join(dir, 'example.mjs');
      await writeFile(file, runnable(example.code));
      // What an example writes to the temp dir goes with its scratch dir.
      const env = {
        ...process.env,
        TMPDIR: dir,
        ...(example.code.includes("from 'pg'") ? { DATABASE_URL: await databaseFor(name) } : {}),
      };
      const run = spawnSync(process.execPath, [file], { cwd: dir, env, encoding: 'utf8' });
      expect(run.stderr, `${example.where}: ${name}`).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toEqual(EXPECTED_OUTPUT[name] ?? expect.any(String));
    },
  );
});
