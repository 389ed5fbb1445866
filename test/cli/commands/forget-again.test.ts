/**
 * Erasure that holds, on both stores, through the compiled CLI and a real `serve`:
 * - `forget --name` run twice gives one pseudonym (`reused`), and the ledger keeps no readable
 *   trace of the name (only its keyed hash; the key lives beside it, not in it);
 * - a delivery that arrives after `forget --name`, carrying the name under a new participant id
 *   (and in its title), is stored with the pseudonym;
 * - `forget --participant ID` names the other participant ids stored with the same name, in its
 *   text and its `--json` output.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ForgetReport } from '../../../src/engine/forget-report.js';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';
import {
  envelope,
  participantEvent,
  removeTempDirs,
  requestEvent,
  runCli,
  tempDir,
} from '../cli-helpers.js';
import { deliver, killLeftoverServes, startServe } from '../serve/serve-process.js';

/** A name nothing else contains; one that must survive (another person). */
const NAME = 'Wqxz Ümlautdottir';
const OTHER = 'Kept Person';

const withName = (type: string, request: number, participant: number, name: string): object => ({
  ...participantEvent(type, request, participant, false),
  partcipantName: name,
  signRequestName: `Lease for ${name}`,
});

/** Request 42 and 43 hold the person as participants 7 and 8; request 44 another person. */
const EVENTS = [
  requestEvent('sign-request-sent', 42, false),
  withName('participant-sent', 42, 7, NAME),
  requestEvent('sign-request-sent', 43, false),
  withName('participant-sent', 43, 8, NAME),
  withName('participant-viewed', 43, 8, NAME),
  requestEvent('sign-request-sent', 44, false),
  withName('participant-sent', 44, 9, OTHER),
];

/** The late delivery: the person again, under a participant id no forget named. */
const LATE = JSON.stringify(withName('participant-viewed', 45, 70, NAME));

interface Store {
  readonly args: readonly string[];
  readonly serveArgs: readonly string[];
  /** Every stored event body, as text. */
  text(): Promise<string>;
  /** The ledger as stored (file or table), as text. */
  ledger(): Promise<string>;
}

const forget = async (
  store: Store,
  args: readonly string[],
): Promise<{ report: ForgetReport; text: string }> => {
  // The text first, as a dry run: it sees what the forget after it will see.
  const text = await runCli(['forget', ...store.args, ...args, '--dry-run']);
  expect(text.code, text.stderr).toBe(0);
  const json = await runCli(['forget', ...store.args, ...args, '--json']);
  expect(json.code, json.stderr).toBe(0);
  return { report: JSON.parse(json.stdout) as ForgetReport, text: text.stdout };
};

const checks = (store: () => Store): void => {
  it('forget --name run twice gives one pseudonym; the ledger holds no readable name', async () => {
    const first = await forget(store(), ['--name', NAME]);
    expect(first.report.reused).toBe(false);
    const again = await forget(store(), ['--name', NAME.normalize('NFD')]);
    expect(again.report).toMatchObject({ reused: true, pseudonym: first.report.pseudonym });
    const stored = await store().text();
    expect(stored).not.toContain('Ümlaut');
    expect(stored).not.toContain('Wqxz');
    expect(stored).toContain(OTHER);
    const ledger = await store().ledger();
    expect(ledger).not.toContain('Wqxz');
    expect(ledger).toMatch(/"nameKeys":\["[0-9a-f]{64}"\]/);
  });

  it('a delivery that arrives after forget --name is stored with the pseudonym', async () => {
    const { report } = await forget(store(), ['--name', NAME, '--dry-run']);
    const serve = await startServe(store().serveArgs);
    try {
      const answer = await deliver(serve.url, LATE, { 'x-delivery-id': 'late-1' });
      expect(answer.status).toBe(200);
    } finally {
      expect((await serve.stop()).code).toBe(0);
    }
    const stored = await store().text();
    expect(stored).toContain(`"partcipantName":"${report.pseudonym}"`);
    expect(stored).toContain(`"signRequestName":"Lease for ${report.pseudonym}"`);
    expect(stored).not.toContain('Wqxz');
  });
};

/** The same-name question needs the name still stored: a fresh store each time. */
const sameName = async (store: Store): Promise<void> => {
  const { report, text } = await forget(store, ['--participant', '7']);
  expect(report.reused).toBe(false);
  expect(report.sameNameParticipantIds).toEqual([8]);
  expect(text).toContain(
    'Same name:    1 other participant (8) carry a name of this person; if they are this person, forget again with --participant 7 --participant 8 (or --name): the pseudonym is kept',
  );
  // Adding them as the output says finishes the job, with the same pseudonym.
  const added = await forget(store, ['--participant', '7', '--participant', '8']);
  expect(added.report).toMatchObject({
    reused: true,
    pseudonym: report.pseudonym,
    sameNameParticipantIds: [],
  });
  expect(await store.text()).not.toContain('Wqxz');
};

afterEach(killLeftoverServes);
afterAll(removeTempDirs);

describe('forget on a file log', () => {
  let log = '';
  const store = (): Store => ({
    args: [log],
    serveArgs: ['--log', log],
    text: () => readFile(log, 'utf8'),
    ledger: () => readFile(`${log}.erasures`, 'utf8'),
  });
  const fresh = async (): Promise<string> => {
    const path = join(await tempDir(), 'events.ndjson');
    await writeFile(path, `${EVENTS.map((e, i) => envelope(i + 1, e, `d${i + 1}`)).join('\n')}\n`);
    return path;
  };
  beforeAll(async () => {
    log = await fresh();
  });

  checks(store);

  it('keeps the key beside the ledger, readable by its owner only', async () => {
    const key = await readFile(`${log}.erasures-key`, 'utf8');
    expect(key).toMatch(/^[0-9a-f]{64}\n$/);
    expect((await stat(`${log}.erasures-key`)).mode & 0o777).toBe(0o600);
    expect(await store().ledger()).not.toContain(key.trim());
  });

  it('a ledger of name hashes whose key is gone stops writers, naming the file', async () => {
    const { rm } = await import('node:fs/promises');
    await rm(`${log}.erasures-key`);
    const run = await runCli(['forget', log, '--name', NAME]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('.erasures-key is missing');
  });

  it('forget --participant names the other participant ids of the same name', async () => {
    log = await fresh();
    await sameName(store());
  });
});

describe('forget on PostgreSQL', () => {
  let server: PostgresServer;
  let url = '';
  let pool: pg.Pool;
  const store = (): Store => ({
    args: ['--database', url],
    serveArgs: ['--database', url],
    text: async () =>
      (
        await pool.query<{ body: string }>('SELECT body FROM signfold.events ORDER BY position')
      ).rows
        .map((row) => row.body)
        .join('\n'),
    ledger: async () =>
      (await pool.query<{ entry: unknown }>('SELECT entry FROM signfold.erasures ORDER BY id')).rows
        .map((row) => JSON.stringify(row.entry))
        .join('\n'),
  });
  const fresh = async (name: string): Promise<void> => {
    await pool?.end();
    url = await server.createDatabase(name);
    pool = new pg.Pool({ connectionString: url, max: 2 });
    const migrated = await runCli(['pg', 'migrate', '--database', url]);
    expect(migrated.code, migrated.stderr).toBe(0);
    const dir = await tempDir();
    const log = join(dir, 'events.ndjson');
    await writeFile(log, `${EVENTS.map((e, i) => envelope(i + 1, e, `d${i + 1}`)).join('\n')}\n`);
    const imported = await runCli(['pg', 'import', log, '--database', url]);
    expect(imported.code, imported.stderr).toBe(0);
  };
  beforeAll(async () => {
    server = await postgresDatabase();
    await fresh('forget_again');
  });
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  checks(store);

  it('keeps the key in a table of its own, not in the ledger', async () => {
    const { rows } = await pool.query<{ key: Buffer }>('SELECT key FROM signfold.erasure_key');
    expect(rows).toHaveLength(1);
    expect(await store().ledger()).not.toContain(rows[0]?.key.toString('hex'));
  });

  it('forget --participant names the other participant ids of the same name', async () => {
    await fresh('forget_same_name');
    await sameName(store());
  });
});
