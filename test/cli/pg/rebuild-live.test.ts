/**
 * Issue 32's proof on PostgreSQL: a live system upgraded without downtime.
 * `serve --database` takes steady signed deliveries (a third of the requests
 * end with `sign-request-expired`, which only the upcaster makes valid), an
 * old `pg work --reactors` follows, and `pg rebuild --upcasters --switch`
 * runs while deliveries go on. Then: no delivery lost or doubled; the old
 * worker stopped with its one line and exit 0; readers polling during the
 * switch never got an error or an empty answer; after a new worker drained,
 * the tables equal `replay --upcasters` of the stored events; and the
 * reactor has exactly one effect per reacted event, the upcast ones included.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type PostgresServer, postgresDatabase } from '../../support/postgres-server.js';
import { auditDeliveries, postgresDeliveries } from '../../support/stored-deliveries.js';
import { removeTempDirs, requestEvent, runCli, templateEvent } from '../cli-helpers.js';
import { deliver, eventually, startServe } from '../serve/serve-process.js';
import {
  expectExportEqualsReplay,
  startCli,
  writeEventsLog,
  writeModules,
} from './rebuild-support.js';

let server: PostgresServer | undefined;
afterAll(async () => {
  await server?.stop();
  await removeTempDirs();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends deliveries until stopped, each retried until answered 2xx (bounded by the test's deadline). */
class Sender {
  readonly acknowledged: string[] = [];
  readonly sent: string[] = [];
  readonly failures: string[] = [];
  #stopped = false;
  readonly #lanes: Promise<void>[] = [];

  constructor(url: string, lanes: number) {
    this.#lanes.push(
      this.#send(url, 'template', [JSON.stringify(templateEvent('template-activated'))]),
    );
    for (let lane = 0; lane < lanes; lane += 1) this.#lanes.push(this.#lane(url, lane, lanes));
  }

  async #lane(url: string, lane: number, lanes: number): Promise<void> {
    for (let i = lane; !this.#stopped; i += lanes) {
      const id = 5000 + i;
      const last = i % 3 === 0 ? 'sign-request-expired' : 'sign-request-declined';
      await this.#send(url, `r${id}`, [
        JSON.stringify(requestEvent('sign-request-sent', id, true)),
        JSON.stringify(requestEvent(last, id, false)),
      ]);
      await sleep(5);
    }
  }

  async #send(url: string, prefix: string, bodies: readonly string[]): Promise<void> {
    for (const [n, body] of bodies.entries()) {
      const deliveryId = `${prefix}-${n}`;
      this.sent.push(deliveryId);
      for (let attempt = 0; ; attempt += 1) {
        try {
          const answer = await deliver(url, body, { 'x-delivery-id': deliveryId });
          await answer.arrayBuffer();
          if (answer.ok) {
            this.acknowledged.push(deliveryId);
            break;
          }
          if (answer.status < 500 || attempt >= 20) {
            this.failures.push(`${deliveryId}: ${answer.status}`);
            break;
          }
        } catch (cause) {
          if (attempt >= 20) {
            this.failures.push(`${deliveryId}: ${String(cause)}`);
            break;
          }
        }
        await sleep(100);
      }
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#lanes);
  }
}

/** Polls `SELECT count(*)` of the sign requests until stopped: every error and every 0 it got. */
const pollReaders = (url: string) => {
  const problems: string[] = [];
  let reads = 0;
  let stopped = false;
  const done = (async () => {
    const client = new pg.Client(url);
    await client.connect();
    try {
      while (!stopped) {
        try {
          const { rows } = await client.query('SELECT count(*) AS n FROM signfold.sign_requests');
          reads += 1;
          if (Number(rows[0].n) === 0) problems.push('an empty sign_requests');
        } catch (cause) {
          problems.push(String(cause));
        }
        await sleep(10);
      }
    } finally {
      await client.end();
    }
  })();
  const statuses = (async () => {
    while (!stopped) {
      const status = await runCli(['pg', 'status', '--database', url]);
      reads += 1;
      if (status.code !== 0) problems.push(`pg status: ${status.code} ${status.stderr}`);
    }
  })();
  return {
    problems,
    reads: () => reads,
    stop: async () => {
      stopped = true;
      await Promise.all([done, statuses]);
    },
  };
};

describe('pg rebuild --switch on a live system', () => {
  it('upgrades under load: nothing lost or doubled, readers never fail, reactors react once', async () => {
    server = await postgresDatabase();
    const url = await server.createDatabase('live_rebuild');
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    const { upcasters, reactors } = await writeModules();
    try {
      expect((await runCli(['pg', 'migrate', '--database', url])).code).toBe(0);
      const serve = await startServe(['--database', url]);
      const oldWorker = startCli([
        'pg',
        'work',
        '--database',
        url,
        '--reactors',
        reactors,
        '--lease',
        '2000',
        '--poll-interval',
        '100',
      ]);
      const sender = new Sender(serve.url, 2);
      let readers: ReturnType<typeof pollReaders> | undefined;
      let redo = 0;
      try {
        // The old worker has projected a good part of the traffic, expired events included.
        await eventually(
          async () =>
            Number(
              (
                await pool.query(
                  `SELECT count(*) AS n FROM signfold.quarantine WHERE reason = 'invalid-event'`,
                )
              ).rows[0].n,
            ) >= 20,
          'the old worker to quarantine expired events',
          { deadlineMs: 60_000 },
        );
        readers = pollReaders(url);
        const rebuild = await runCli([
          'pg',
          'rebuild',
          '--database',
          url,
          '--upcasters',
          upcasters,
          '--switch',
          '--lease',
          '2000',
          '--poll-interval',
          '100',
        ]);
        expect(rebuild.code, rebuild.stderr).toBe(0);
        expect(rebuild.stdout).toMatch(
          /^switched schema signfold to the rebuilt tables at position \d+: \d+ events, 16 partitions, \d+ newly applicable positions \(\d+ to react to again\); appends waited \d+\.\d s; the old tables are in signfold_retired\n$/,
        );
        redo = Number(/\((\d+) to react to again\)/.exec(rebuild.stdout)?.[1]);
        expect(redo).toBeGreaterThan(0);

        const retired = await oldWorker.closed;
        expect(retired.code, retired.stderr).toBe(0);
        expect(retired.stderr).toContain(
          'signfold pg work: the projection tables of schema signfold were replaced by pg rebuild --switch; this worker stops (restart it with the new version)\n',
        );
        // Deliveries go on after the switch too.
        const before = sender.acknowledged.length;
        await eventually(
          () => sender.acknowledged.length >= before + 20,
          'deliveries after the switch',
        );
      } finally {
        await sender.stop();
        await readers?.stop();
        oldWorker.child.kill('SIGTERM');
        expect((await serve.stop()).code).toBe(0);
      }
      expect(sender.failures).toEqual([]);
      expect(readers?.problems).toEqual([]);
      expect(readers?.reads()).toBeGreaterThan(10);
      const audit = auditDeliveries(
        await postgresDeliveries(pool),
        sender.acknowledged,
        sender.sent,
      );
      expect(audit).toEqual({ lost: [], doubled: [], unknown: [] });

      const next = await runCli([
        'pg',
        'work',
        '--database',
        url,
        '--upcasters',
        upcasters,
        '--reactors',
        reactors,
        '--drain',
      ]);
      expect(next.code, next.stderr).toBe(0);
      await expectExportEqualsReplay(url, await writeEventsLog(pool), upcasters);

      // One effect per declined event, whether declined as sent or only once upcast.
      const { rows: terminal } = await pool.query<{ position: string; event_type: string }>(
        `SELECT position, event_type FROM signfold.events
          WHERE event_type IN ('sign-request-declined', 'sign-request-expired') ORDER BY position`,
      );
      const { rows: effects } = await pool.query<{ position: string; n: string }>(
        `SELECT position, count(*) AS n FROM signfold.effects WHERE reactor = 'on-declined'
          GROUP BY position ORDER BY position`,
      );
      expect(effects.filter((row) => Number(row.n) !== 1)).toEqual([]);
      expect(effects.map((row) => Number(row.position))).toEqual(
        terminal.map((row) => Number(row.position)),
      );
      // Each one the old worker had quarantined (all upcast ones) was reacted to: most of them
      // by way of the redo rows, as the old reactor had passed them.
      const { rows: newly } = await pool.query<{ quarantined: string; reacted: string }>(
        `SELECT count(*) AS quarantined,
                count(*) FILTER (WHERE EXISTS (SELECT 1 FROM signfold.effects AS e
                                 WHERE e.position = q.position AND e.reactor = 'on-declined')) AS reacted
           FROM signfold_retired.quarantine AS q`,
      );
      expect(Number(newly[0]?.reacted)).toBe(Number(newly[0]?.quarantined));
      expect(Number(newly[0]?.quarantined)).toBeGreaterThanOrEqual(redo);
      expect(
        Number((await pool.query('SELECT count(*) AS n FROM signfold.reactor_redo')).rows[0].n),
      ).toBe(0);
    } finally {
      await pool.end();
    }
  });
});
