import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.js';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';
import {
  CLI,
  envelope,
  removeTempDirs,
  requestEvent,
  runCli,
  writeFixture,
} from '../cli-helpers.js';

let server: PostgresServer;

beforeAll(async () => {
  server = await postgresDatabase();
});

afterAll(async () => {
  await server?.stop();
  await removeTempDirs();
});

interface StatusJson {
  readonly partitions: readonly {
    readonly owner: string | null;
    readonly leaseRemainingMs: number | null;
    readonly lagEvents: number;
    readonly lagSeconds: number | null;
  }[];
  readonly workers: readonly { readonly id: string }[];
}

const statusJson = async (url: string): Promise<StatusJson> =>
  JSON.parse((await runCli(['pg', 'status', '--database', url, '--json'])).stdout);

/** The cells of the text status's partition rows (the lease may hold spaces: `expired 1.2 s ago`). */
const statusText = async (url: string): Promise<string[]> => {
  const run = await runCli(['pg', 'status', '--database', url]);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return run.stdout.trimEnd().split('\n');
};

describe('signfold pg status', () => {
  it('imported history lags by how long it has waited here, not by the age of its received_at', async () => {
    const url = await server.createDatabase('status_history');
    await runCli(['pg', 'migrate', '--database', url, '--partitions', '1']);
    // received_at in January 2025: the age of these events is about a year or more.
    const log = await writeFixture('history.ndjson', [
      envelope(1, requestEvent('sign-request-sent', 10, true), 'h-1'),
      envelope(2, requestEvent('sign-request-completed', 10, false), 'h-2'),
    ]);
    expect((await runCli(['pg', 'import', log, '--database', url])).code).toBe(0);
    const [partition] = (await statusJson(url)).partitions;
    expect(partition?.lagEvents).toBe(2);
    // Waiting since the schema was migrated, a few seconds ago at most.
    expect(partition?.lagSeconds).toBeGreaterThanOrEqual(0);
    expect(partition?.lagSeconds).toBeLessThan(120);
    const lines = await statusText(url);
    expect(lines[0]).toMatch(/^schema signfold: 2 events \(.*\), 1 partition, 0 workers alive$/);
    const lagSeconds = Number(lines[3]?.split(/\s+/)[5]);
    expect(lagSeconds).toBeLessThan(120);
  });

  it('one worker alive, then its lease expired after a SIGKILL (never a negative lease)', async () => {
    const url = await server.createDatabase('status_dead_owner');
    await runCli(['pg', 'migrate', '--database', url, '--partitions', '2']);
    const child = spawn(process.execPath, [
      CLI,
      ...['pg', 'work', '--database', url, '--lease', '400', '--worker-id', 'w-doomed'],
    ]);
    const exited = new Promise((done) => child.on('close', done));
    try {
      await eventually(
        async () =>
          (await statusJson(url)).partitions.filter((p) => p.owner === 'w-doomed').length === 2,
        'the worker to hold both partitions',
      );
      // Its 400 ms lease may lapse for a moment on a busy machine: alive once, renewed since.
      await eventually(
        async () => /, 2 partitions, 1 worker alive$/.test((await statusText(url))[0] ?? ''),
        'the worker to be seen alive',
      );
      child.kill('SIGKILL');
      await exited;
      // Nobody renews the lease any more (a renewal it sent just before may still land).
      let status = await statusJson(url);
      await eventually(async () => {
        status = await statusJson(url);
        // The worker's own lease is renewed by a statement of its own, a moment after the
        // partitions': it may end a few ms after theirs.
        return (
          status.workers.length === 0 &&
          status.partitions.every((p) => p.leaseRemainingMs !== null && p.leaseRemainingMs < 0)
        );
      }, 'its leases to run out');
      expect(status.workers).toEqual([]);
      for (const partition of status.partitions) {
        expect(partition.owner).toBe('w-doomed');
        expect(partition.leaseRemainingMs).toBeLessThan(0);
      }
      const dead = await statusText(url);
      expect(dead[0]).toMatch(/, 2 partitions, 0 workers alive$/);
      for (const row of dead.slice(3)) {
        expect(row).toMatch(/^\d\s+w-doomed\s+expired \d+\.\d s ago\s+0\s+0\s+0\.0\s+-$/);
        expect(row).not.toMatch(/-\d/);
      }
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('live events lag by their own age; a stopped partition by the time since it last moved', async () => {
    const url = await server.createDatabase('status_live');
    await runCli(['pg', 'migrate', '--database', url, '--partitions', '1']);
    const db = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const now = new Date().toISOString();
      const log = await writeFixture('live.ndjson', [
        JSON.stringify({
          position: 1,
          receivedAt: now,
          event: requestEvent('sign-request-sent', 1, true),
        }),
      ]);
      await runCli(['pg', 'import', log, '--database', url]);
      await runCli(['pg', 'work', '--drain', '--database', url]);
      // The partition last moved long ago; a fresh event waits for fractions of a second.
      await db.query(`UPDATE signfold.partitions SET updated_at = now() - interval '1 hour'`);
      const fresh = await writeFixture('fresh.ndjson', [
        JSON.stringify({
          position: 1,
          receivedAt: new Date().toISOString(),
          event: requestEvent('sign-request-completed', 1, false),
        }),
      ]);
      await runCli(['pg', 'import', fresh, '--database', url]);
      const [waiting] = (await statusJson(url)).partitions;
      expect(waiting?.lagEvents).toBe(1);
      expect(waiting?.lagSeconds).toBeLessThan(60);
      // An old event now waits too: the partition has made no progress for an hour.
      const old = await writeFixture('old.ndjson', [
        envelope(3, requestEvent('sign-request-sent', 2, true), 'old-3'),
      ]);
      await runCli(['pg', 'import', old, '--database', url]);
      const [stalled] = (await statusJson(url)).partitions;
      expect(stalled?.lagEvents).toBe(2);
      expect(stalled?.lagSeconds).toBeGreaterThanOrEqual(3600);
      expect(stalled?.lagSeconds).toBeLessThan(3700);
    } finally {
      await db.end();
    }
  });
});
