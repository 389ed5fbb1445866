/**
 * `pg work --metrics-port` against a real server (issue 34, "Metrics
 * everywhere"): while the worker is paused (SIGSTOP) and deliveries keep
 * arriving through `serve --database`, the lag `serve` reports per partition
 * rises, in events and in seconds; after SIGCONT it falls back to 0, and the
 * worker's `signfold_events_total` equals what the partitions say was
 * applied, no-op, conflicting and invalid. Its metrics server is on
 * 127.0.0.1 only, a port in use is exit 2, and it ends with the worker at
 * SIGTERM. Every wait is bounded; no assertion depends on how fast the
 * machine is.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { generateEvents } from '../../../bench/generate-stream.js';
import { migrate } from '../../../src/postgres/schema/migrate.js';
import { eventually } from '../../support/eventually.js';
import { type MetricsProcess, startMetricsProcess } from '../../support/metrics-process.js';
import { throwawayPostgres } from '../../support/postgres-server.js';
import { scrape, total } from '../../support/prometheus-text.js';
import { runCli } from '../cli-helpers.js';
import { type ServeProcess, startServe } from '../serve/serve-process.js';

const db = throwawayPostgres(4);
const running: { stop(): unknown }[] = [];
afterEach(async () => {
  for (const process of running.splice(0)) await process.stop();
});

const OUTCOMES = {
  applied: 'applied',
  'no-op': 'no_ops',
  conflict: 'conflicts',
  invalid: 'invalid',
};

/** Starts `pg work` following `schema`, with its metrics on a free port. */
const startWorker = async (schema: string): Promise<MetricsProcess> => {
  const worker = await startMetricsProcess([
    'pg',
    'work',
    '--database',
    db.server.url,
    '--schema',
    schema,
    '--poll-interval',
    '100',
    '--metrics-port',
    '0',
  ]);
  running.push({
    stop: async () => {
      worker.child.kill('SIGCONT');
      worker.child.kill('SIGTERM');
      await worker.exited;
    },
  });
  return worker;
};

/** POSTs each event to serve as a delivery of its own. */
const deliver = async (serve: ServeProcess, events: readonly object[], prefix: string) => {
  for (const [i, event] of events.entries()) {
    const answer = await fetch(`${serve.url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-delivery-id': `${prefix}-${i}` },
      body: JSON.stringify(event),
      signal: AbortSignal.timeout(20_000),
    });
    expect(answer.status).toBe(200);
  }
};

/** The lag summed over the partitions, from a scrape of `url`. */
const lagOf = async (url: string) => {
  const { status, samples } = await scrape(url);
  expect(status).toBe(200);
  return {
    events: total(samples, 'signfold_projection_lag_events'),
    seconds: Math.max(
      0,
      ...samples.filter((s) => s.name === 'signfold_projection_lag_seconds').map((s) => s.value),
    ),
    partitions: samples.filter((s) => s.name === 'signfold_projection_lag_events').length,
  };
};

describe('pg work --metrics-port', () => {
  it('lag rises under a paused worker and falls after; events_total matches the partitions', async () => {
    const schema = 'metrics_lag';
    (await migrate(db.pool, { schema, partitions: 4 }))._unsafeUnwrap();
    const events = [...generateEvents({ seed: 34, signRequests: 40 })];
    const before = events.slice(0, 100);
    const during = events.slice(100, 220);
    const serve = await startServe(
      ['--database', db.server.url, '--schema', schema, '--insecure-no-signature'],
      { ...process.env, SIGNFOLD_WEBHOOK_SECRET: undefined },
    );
    running.push({ stop: () => serve.stop() });
    const worker = await startWorker(schema);
    const serveMetrics = `${serve.url}/metrics`;

    // Every partition is reported, by serve (from the tables) and by the worker.
    expect((await lagOf(serveMetrics)).partitions).toBe(4);
    expect((await lagOf(worker.url)).partitions).toBe(4);
    await deliver(serve, before, 'before');
    await eventually(async () => (await lagOf(worker.url)).events === 0, 'the worker to catch up');
    // The worker's connections carry its name in pg_stat_activity (docs/postgres.md).
    const named = await db.pool.query<{ name: string; n: number }>(
      `SELECT application_name AS name, count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1 ORDER BY 1`,
    );
    expect(named.rows.find((row) => row.name === 'signfold pg work')?.n).toBeGreaterThan(0);

    worker.child.kill('SIGSTOP');
    await deliver(serve, during, 'during');
    const paused = await lagOf(serveMetrics);
    expect(paused.events).toBe(during.length);
    // The seconds keep rising while nothing is projected (bounded: a few scrapes apart).
    await eventually(
      async () => (await lagOf(serveMetrics)).seconds > paused.seconds + 0.5,
      'the lag in seconds to rise',
      { intervalMs: 250 },
    );
    worker.child.kill('SIGCONT');
    await eventually(
      async () => (await lagOf(serveMetrics)).events === 0,
      'the lag to fall after SIGCONT',
    );
    const after = await lagOf(serveMetrics);
    expect(after.seconds).toBe(0);

    // The worker projected everything: its counters equal the partitions' sums.
    const sums = await db.pool.query(
      `SELECT sum(applied) AS applied, sum(no_ops) AS no_ops, sum(conflicts) AS conflicts,
              sum(invalid) AS invalid FROM ${schema}.partitions`,
    );
    const row = sums.rows[0] as Record<string, string>;
    const { samples } = await scrape(worker.url);
    for (const [outcome, column] of Object.entries(OUTCOMES)) {
      expect(total(samples, 'signfold_events_total', { outcome }), outcome).toBe(
        Number(row[column]),
      );
    }
    expect(Number(row.applied)).toBeGreaterThan(0);
    // serve stores, it does not fold: it has the gauges, not the worker's counters.
    const served = await scrape(serveMetrics);
    expect(total(served.samples, 'signfold_events_total')).toBe(0);
    expect(served.text).not.toContain('signfold_events_total');
    expect(total(served.samples, 'signfold_webhook_deliveries_total', { outcome: 'stored' })).toBe(
      before.length + during.length,
    );

    // SIGTERM ends the worker and its metrics server with it.
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    await expect(fetch(worker.url, { signal: AbortSignal.timeout(5000) })).rejects.toThrow();
  });

  it('leaves the gauges out when the database cannot be read, still serves the counters, and the worker goes on', async () => {
    const schema = 'metrics_gone';
    (await migrate(db.pool, { schema, partitions: 2 }))._unsafeUnwrap();
    const worker = await startWorker(schema);
    const before = await scrape(worker.url);
    expect(before.status).toBe(200);
    expect(before.text).toMatch(/^signfold_gauges_up 1$/m);
    expect(before.text).toMatch(/^signfold_projection_lag_events\{partition="0"\} /m);
    // The gauges' table is gone: the gauges are left out, not the scrape nor the worker.
    await db.pool.query(`ALTER TABLE ${schema}.effects RENAME TO effects_away`);
    const failed = await scrape(worker.url);
    expect(failed.status).toBe(200);
    expect(failed.text).toMatch(/^signfold_gauges_up 0$/m);
    expect(failed.text).not.toMatch(/^signfold_projection_lag_events\{/m);
    expect(failed.text).toMatch(/^signfold_events_total\{outcome="applied"\} /m);
    await db.pool.query(`ALTER TABLE ${schema}.effects_away RENAME TO effects`);
    expect((await scrape(worker.url)).text).toMatch(/^signfold_gauges_up 1$/m);
    expect(worker.child.exitCode).toBeNull();
    const notFound = await fetch(worker.url.replace('/metrics', '/other'));
    expect(notFound.status).toBe(404);
  });

  it('a port in use is exit 2 with one line, before any work', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const schema = 'metrics_port';
      (await migrate(db.pool, { schema, partitions: 2 }))._unsafeUnwrap();
      const ran = await runCli([
        'pg',
        'work',
        '--database',
        db.server.url,
        '--schema',
        schema,
        '--metrics-port',
        String(port),
      ]);
      expect(ran.code).toBe(2);
      expect(ran.stderr).toBe(
        `signfold: --metrics-port: cannot listen on 127.0.0.1:${port}: address already in use\n`,
      );
      const owners = await db.pool.query(
        `SELECT count(*) AS n FROM ${schema}.partitions WHERE owner IS NOT NULL`,
      );
      expect(owners.rows[0]).toEqual({ n: '0' });
    } finally {
      blocker.close();
    }
    const usage = await runCli(['pg', 'work', '--database', db.server.url, '--metrics-port', 'x']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--metrics-port must be a non-negative integer');
  });
});
