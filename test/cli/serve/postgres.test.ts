/**
 * `signfold serve --database` on a real PostgreSQL server: a schema that is
 * not migrated is refused with one line, and a restart of the server while
 * serve runs does not kill it: deliveries get 503 with Retry-After and
 * /readyz 503 while the server is down, then both recover. An append held
 * up in the database is answered 503 at the deadline and counted once.
 *
 * Every serve a test starts is killed after it (SIGKILL if still running),
 * so a test that fails halfway leaves no process behind.
 */
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runServeToEnd } from '../../../bench/serve-process.js';
import { throwawayPostgres } from '../../support/postgres-server.js';
import { removeTempDirs, runCli } from '../cli-helpers.js';
import {
  deliver,
  eventBody,
  eventually,
  killLeftoverServes,
  metricValue,
  secretEnv,
  startServe,
} from './serve-process.js';

afterEach(killLeftoverServes);
afterAll(removeTempDirs);

const database = throwawayPostgres(2, { own: true });

const readyStatus = async (url: string): Promise<number> => (await fetch(`${url}/readyz`)).status;

describe('serve on PostgreSQL', () => {
  it('refuses a schema that is not migrated with one line (exit 2), naming pg migrate', async () => {
    const url = await database.server.createDatabase('unmigrated');
    // Killed after a minute should it listen instead of refusing.
    const run = await runServeToEnd(['--database', url, '--port', '0'], {
      env: secretEnv(),
      limitMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(2);
    const lines = run.stderr.split('\n').filter((line) => line !== '');
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^signfold: cannot serve: .*\(run signfold pg migrate first\)$/);
  });

  it('survives a restart of the database: 503 and /readyz 503 while it is down, then 200 again', async () => {
    // The server trusts every client: the password is there to be kept out of every output.
    const url = (await database.server.createDatabase('restarts')).replace(
      'signfold@',
      'signfold:pw-never-shown@',
    );
    expect((await runCli(['pg', 'migrate', '--database', url])).code).toBe(0);
    const serve = await startServe(['--database', url, '--connect-timeout', '2']);
    const answers: string[] = [];
    try {
      expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await readyStatus(serve.url)).toBe(200);
      const first = await deliver(serve.url, eventBody(1), { 'x-delivery-id': 'pg-1' });
      expect(await first.json()).toEqual({ position: 1, duplicate: false });

      database.server.pause();
      try {
        await eventually(async () => (await readyStatus(serve.url)) === 503, '503');
        const text = await (await fetch(`${serve.url}/readyz`)).text();
        answers.push(text);
        const readyz = JSON.parse(text) as { reason: string };
        expect(readyz).toMatchObject({ status: 'unavailable' });
        expect(readyz.reason).toMatch(/^database unavailable: /);
        const down = await deliver(serve.url, eventBody(2), { 'x-delivery-id': 'pg-2' });
        expect(down.status).toBe(503);
        answers.push(await down.clone().text());
        expect(down.headers.get('retry-after')).toBe('5');
        expect(
          await metricValue(
            serve.url,
            'signfold_webhook_deliveries_total{outcome="unavailable",status="503"}',
          ),
        ).toBe(1);
        expect(serve.child.exitCode).toBeNull();
      } finally {
        database.server.resume();
      }

      await eventually(async () => (await readyStatus(serve.url)) === 200, '200');
      // The sender delivers the refused one again, and it is stored once, after the first.
      const again = await deliver(serve.url, eventBody(2), { 'x-delivery-id': 'pg-2' });
      expect(await again.json()).toEqual({ position: 2, duplicate: false });
      const repeated = await deliver(serve.url, eventBody(1), { 'x-delivery-id': 'pg-1' });
      expect(await repeated.json()).toEqual({ position: 1, duplicate: true });
    } finally {
      const exit = await serve.stop('SIGINT');
      expect(exit.code, exit.stderr).toBe(0);
      expect(exit.stdout).toMatch(/^listening on http:\S+ \(PostgreSQL schema signfold\)\n$/);
      expect([exit.stdout, exit.stderr, ...answers].join('\n')).not.toContain('pw-never-shown');
    }
    const client = new pg.Client(url);
    await client.connect();
    try {
      const { rows } = await client.query(
        'SELECT position, delivery_id FROM signfold.events ORDER BY position',
      );
      expect(rows.map((row) => [Number(row.position), row.delivery_id])).toEqual([
        [1, 'pg-1'],
        [2, 'pg-2'],
      ]);
    } finally {
      await client.end();
    }
  });

  it('an append held up in the database: 503 with Retry-After at the deadline, then SIGTERM exits 0', async () => {
    const url = await database.server.createDatabase('stalls');
    expect((await runCli(['pg', 'migrate', '--database', url])).code).toBe(0);
    const serve = await startServe(['--database', url, '--append-timeout', '2']);
    const blocker = new pg.Client(url);
    await blocker.connect();
    try {
      // A transaction that holds the events table: the delivery's insert waits for it.
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE signfold.events IN ACCESS EXCLUSIVE MODE');
      const sent = Date.now();
      const held = await deliver(serve.url, eventBody(1), { 'x-delivery-id': 'held' });
      const waited = Date.now() - sent;
      // Answered at the 2 s deadline (not left to the sender's own timeout), and not stored.
      expect(held.status).toBe(503);
      expect(held.headers.get('retry-after')).toBe('5');
      expect(waited).toBeGreaterThanOrEqual(1_900);
      expect(waited).toBeLessThan(5_000);
      // The log's deadline answered it (serve runs no timer of its own), and was counted.
      expect((await held.json()) as unknown).toMatchObject({
        error: expect.stringMatching(/^appending to signfold\.events: no commit within 2 s /),
      });
      expect(
        await metricValue(
          serve.url,
          'signfold_webhook_deliveries_total{outcome="unavailable",status="503"}',
        ),
      ).toBe(1);
      expect(await metricValue(serve.url, 'signfold_webhook_append_timeouts_total')).toBe(1);
      // The group commit abandoned that connection: nothing in progress holds the stop up.
      const signalled = Date.now();
      const exit = await serve.stop('SIGTERM');
      expect(exit.code, exit.stderr).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(10_000);
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
    }
  });
});
