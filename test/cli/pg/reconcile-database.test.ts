/**
 * Observation records on PostgreSQL: `reconcile --database` appends them,
 * `pg work` folds them (with the request's participants loaded) and hands the
 * reactors the events they stand for, `inspect --database` shows the repair,
 * a second run appends nothing, `pg import` carries them, and `pg export` shows
 * what they repaired, as `replay --json` does for the file.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../../../src/testing/index.js';
import { callsByKey, startHttpSink } from '../../support/http-sink.js';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';
import { ROOT, removeTempDirs, runCli, tempDir } from '../cli-helpers.js';

const FETCH = join(ROOT, 'test/fixtures/reconcile/fetch-from-file.mjs');
const SINK_REACTORS = join(ROOT, 'test/fixtures/reactors/sink-reactors.mjs');

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

const envelope = (position: number, event: object) =>
  JSON.stringify({ position, receivedAt: '2026-11-20T10:00:00.000Z', event });

const representation = (id: number, status: string, participantStatus: string) => ({
  id,
  name: `Request ${id}`,
  status,
  formType: 'Form',
  savedTime: '2026-11-20 10:00:00',
  participants: [{ id: 5, name: 'Ada Lovelace', status: participantStatus }],
});

const migrated = async (name: string): Promise<string> => {
  const url = await server.createDatabase(name);
  expect((await runCli(['pg', 'migrate', '--database', url, '--partitions', '3'])).code).toBe(0);
  return url;
};

describe('reconcile --database and observation records on PostgreSQL', () => {
  it('repairs a lost completion that pg work folds and reacts to once, and import carries it', async () => {
    const log = join(dir, 'events.ndjson');
    const lines = [1000, 1001].flatMap((id, i) => [
      envelope(i * 2 + 1, events.signRequestSent({ signRequestId: id })),
      envelope(i * 2 + 2, events.participantSent({ signRequestId: id })),
    ]);
    await writeFile(log, `${lines.join('\n')}\n`);
    const api = join(dir, 'api.json');
    await writeFile(
      api,
      JSON.stringify({
        1000: representation(1000, 'Completed', 'Signed'),
        1001: representation(1001, 'Sent', 'Sent'),
      }),
    );
    const url = await migrated('reconcile_first');
    expect((await runCli(['pg', 'import', log, '--database', url])).code).toBe(0);
    // Folded first, so the observation is a batch of its own: its participants must be loaded for it.
    expect((await runCli(['pg', 'work', '--database', url, '--drain'])).code).toBe(0);
    const env = { ...process.env, SIGNFOLD_API_FILE: api };
    const ids = ['--sign-request', '1000', '--sign-request', '1001'];

    const first = await runCli(
      ['reconcile', '--database', url, '--fetch', FETCH, ...ids],
      ROOT,
      env,
    );
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      'sign request 1000: repaired at position 5: status: projection says sent, service says completed',
    );
    expect(first.stdout).toContain('sign request 1001: agrees');

    // Folded without reactors, so only the observation's own keys load its participants.
    expect((await runCli(['pg', 'work', '--database', url, '--drain'])).code).toBe(0);
    const sink = await startHttpSink();
    try {
      const work = await runCli(
        ['pg', 'work', '--database', url, '--drain', '--reactors', SINK_REACTORS],
        ROOT,
        {
          ...env,
          SIGNFOLD_SINK_URL: sink.url,
        },
      );
      expect(work.code).toBe(0);
      const keys = [...callsByKey(sink.calls).keys()];
      expect(keys.filter((key) => key.startsWith('documents:'))).toEqual(['documents:5:1']);
    } finally {
      await sink.close();
    }

    const inspect = await runCli(
      ['inspect', '--database', url, '--sign-request', '1000'],
      ROOT,
      env,
    );
    expect(inspect.code).toBe(0);
    expect(inspect.stdout).toMatch(/status\s+completed/);
    expect(inspect.stdout).toMatch(/\n\s+5\s+\S+\s+observation\s+-\s+applied/);
    const status = await runCli(['pg', 'status', '--database', url, '--json'], ROOT, env);
    const partitions = JSON.parse(status.stdout).partitions as Record<string, number>[];
    const sum = (member: string) => partitions.reduce((total, p) => total + (p[member] ?? 0), 0);
    expect([sum('applied'), sum('conflicts'), sum('invalid')]).toEqual([5, 0, 0]);

    const second = await runCli(
      ['reconcile', '--database', url, '--fetch', FETCH, ...ids],
      ROOT,
      env,
    );
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(
      'reconcile: 2 sign requests asked: 0 repaired, 2 agree, 0 unrepairable, 0 failed',
    );

    // pg export prints the projection tables: the repaired request, as replay --json shows it.
    const exported = await runCli(['pg', 'export', '--database', url], ROOT, env);
    expect(exported.code).toBe(0);
    const tables = JSON.parse(exported.stdout);
    expect(tables.signRequests.find((r: { id: number }) => r.id === 1000)).toMatchObject({
      status: 'completed',
    });
    expect(tables.quarantine).toEqual([]);

    // A file log holding the observation (as reconcile wrote it) imports like any log.
    const fileCopy = join(dir, 'with-observation.ndjson');
    await writeFile(fileCopy, `${lines.join('\n')}\n`);
    const onFile = await runCli(['reconcile', fileCopy, '--fetch', FETCH, ...ids], ROOT, env);
    expect(onFile.code).toBe(0);
    const again = await migrated('reconcile_copy');
    expect((await runCli(['pg', 'import', fileCopy, '--database', again])).code).toBe(0);
    expect((await runCli(['pg', 'work', '--database', again, '--drain'])).code).toBe(0);
    const copied = await runCli(['pg', 'export', '--database', again], ROOT, env);
    const fromFile = await runCli(['replay', fileCopy, '--json']);
    const strip = (document: string) => {
      const {
        schema,
        log,
        fromSnapshot,
        until,
        processed,
        stats,
        counts,
        halted,
        incompleteTail,
        ...rest
      } = JSON.parse(document);
      return { signRequests: rest.signRequests, participants: rest.participants };
    };
    expect(strip(copied.stdout)).toEqual(strip(fromFile.stdout));
    // Two reconcile runs fetched at two moments: the repaired outcome times are theirs.
    const fetchedAt = (document: string) => {
      const { signRequests, participants } = strip(document);
      const request = signRequests.find((r: { id: number }) => r.id === 1000);
      expect(request).toMatchObject({
        outcomeFrom: 'observation',
        completedAt: expect.any(String),
      });
      return {
        signRequests: signRequests.map(({ completedAt: _c, ...r }: Record<string, unknown>) => r),
        participants: participants.map(({ signedAt: _s, ...p }: Record<string, unknown>) => p),
      };
    };
    expect(fetchedAt(copied.stdout)).toEqual(fetchedAt(exported.stdout));
  });
});
