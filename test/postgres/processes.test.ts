/**
 * Real processes against a real server: concurrent writers with a reader
 * tailing them, a worker killed mid-batch again and again, and webhook
 * servers killed under load.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { generateEvents } from '../../bench/generate-stream.js';
import type { LogRecord } from '../../src/engine/event-log.js';
import { createProjector } from '../../src/engine/projector.js';
import { openPostgresEventLog } from '../../src/postgres/log/postgres-event-log.js';
import { readProjections } from '../../src/postgres/read/read-projections.js';
import { migrate } from '../../src/postgres/schema/migrate.js';
import { createProjectionWorker } from '../../src/postgres/worker/projection-worker.js';
import { ROOT } from '../cli/cli-helpers.js';
import { throwawayPostgres } from '../support/postgres-server.js';
import { sortedRecords } from '../support/projection-records.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const STRESS = process.env.SIGNFOLD_STRESS === '1';

const db = throwawayPostgres();

const node = (script: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): ChildProcess =>
  spawn(process.execPath, [script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

const exited = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

/** Resolves with the first stdout/stderr line matching `pattern`. */
const lineMatching = (child: ChildProcess, pattern: RegExp): Promise<string> =>
  new Promise((resolve, reject) => {
    for (const stream of [child.stdout, child.stderr]) {
      if (stream === null) continue;
      createInterface({ input: stream }).on('line', (line) => {
        if (pattern.test(line)) resolve(line);
      });
    }
    child.once('exit', (code) => reject(new Error(`exited ${code} before printing ${pattern}`)));
  });

describe('several writer processes and a reader', () => {
  it('the reader sees every committed position once, never one below what it has read', async () => {
    const schema = 'concurrent';
    (await migrate(db.pool, { schema }))._unsafeUnwrap();
    const writers = 4;
    const each = STRESS ? 3000 : 400;
    const children = Array.from({ length: writers }, (_, w) =>
      node(join(FIXTURES, 'append-writer.mjs'), [db.server.url, schema, `w${w}`, String(each)]),
    );
    const log = (
      await openPostgresEventLog(db.pool, { schema, readBatchSize: 97 })
    )._unsafeUnwrap();
    const seen: LogRecord[] = [];
    let last = 0;
    const tail = async (): Promise<void> => {
      for await (const batch of log.read({ fromPosition: last + 1 })) {
        for (const record of batch) {
          expect(record.position).toBeGreaterThan(last);
          last = record.position;
          seen.push(record);
        }
      }
    };
    let running = true;
    const done = Promise.all(children.map(exited)).then((codes) => {
      running = false;
      return codes;
    });
    while (running) await tail();
    expect(await done).toEqual(Array(writers).fill(0));
    await tail();
    const stored = await db.pool.query<{ position: string }>(
      `SELECT position FROM ${schema}.events ORDER BY position`,
    );
    expect(seen.map((r) => r.position)).toEqual(stored.rows.map((row) => Number(row.position)));
    expect(new Set(seen.map((r) => r.kind === 'entry' && r.deliveryId)).size).toBe(writers * each);
  });
});

describe('a projection worker killed mid-batch', () => {
  it('ends with exactly the tables of an uninterrupted run', async () => {
    const schema = 'crashes';
    (await migrate(db.pool, { schema }))._unsafeUnwrap();
    const log = (await openPostgresEventLog(db.pool, { schema }))._unsafeUnwrap();
    const stream = [
      ...generateEvents({ seed: 11, signRequests: 300, duplicateRate: 0.05, reorderRate: 0.05 }),
    ];
    // Sprinkle in values that do not decode, for the quarantine.
    const items = stream.flatMap((event, i) =>
      i % 97 === 0 ? [{ event }, { event: { type: 'participant-opened', i } }] : [{ event }],
    );
    (await log.appendBatch(items))._unsafeUnwrap();
    // Each kill lands within 15 ms of a batch line, much like the others: ten show it in CI,
    // the stress run (npm run test:stress) kills 200 times.
    const kills = STRESS ? 200 : 10;
    let killed = 0;
    for (;;) {
      const child = node(join(FIXTURES, 'drain-worker.mjs'), [db.server.url, schema, '7']);
      const first = await lineMatching(child, /^(batch \d+|done)$/);
      if (first === 'done' || killed >= kills) {
        expect(await exited(child)).toBe(0);
        if (first === 'done') break;
        continue;
      }
      // Somewhere inside one of the next batches.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 15));
      child.kill('SIGKILL');
      await exited(child);
      killed += 1;
    }
    expect(killed).toBe(kills);
    const memory = createProjector({ audit: false });
    (await memory.replay(log))._unsafeUnwrap();
    const stored = (await readProjections(db.pool, { schema }))._unsafeUnwrap();
    expect(sortedRecords(stored.state)).toEqual(sortedRecords(memory.state()));
    expect(stored.quarantine.map((q) => q.position)).toEqual(
      memory.quarantine().map((q) => q.position),
    );
    const worker = (await createProjectionWorker(db.pool, { schema }))._unsafeUnwrap();
    // Counters are cumulative over the kills: each event was counted exactly once.
    expect((await worker.drain())._unsafeUnwrap()).toMatchObject({
      ...memory.stats(),
      checkpoint: memory.checkpoint,
      processed: 0,
    });
  });
});

interface Delivery {
  readonly id: string;
  readonly status: number | 'failed';
}

const deliver = async (url: string, id: string): Promise<Delivery> => {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'x-delivery-id': id, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'participant-viewed', deliveryNote: id }),
    });
    await response.text();
    return { id, status: response.status };
  } catch {
    return { id, status: 'failed' };
  }
};

const startWebhookServer = async (schema: string) => {
  // Unsigned deliveries: this is about durability (signatures: test/webhooks/).
  const child = node(join(ROOT, 'examples/webhook-server-pg.js'), ['--insecure-no-signature'], {
    DATABASE_URL: db.server.url,
    SIGNFOLD_SCHEMA: schema,
    PORT: '0',
  });
  const line = await lineMatching(child, /^listening on /);
  const url = /(http:\/\/[^\s,]+)/.exec(line)?.[1] ?? '';
  return { child, url };
};

describe('examples/webhook-server-pg.js', () => {
  it('SIGKILLed under load: every acknowledged delivery is stored exactly once', async () => {
    const schema = 'webhooks';
    (await migrate(db.pool, { schema }))._unsafeUnwrap();
    const ids = Array.from({ length: STRESS ? 5000 : 600 }, (_, i) => `h-${i}`);
    const acknowledged = new Set<string>();
    let remaining = [...ids];
    let kills = 0;
    for (let round = 0; remaining.length > 0; round += 1) {
      expect(round, 'rounds of delivery').toBeLessThan(20);
      const { child, url } = await startWebhookServer(schema);
      const outcomes: Delivery[] = [];
      const queue = [...remaining];
      const killAfter = kills < 5 ? 40 + Math.floor(Math.random() * 80) : Number.POSITIVE_INFINITY;
      const senders = Array.from({ length: 16 }, async () => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
          const outcome = await deliver(url, id);
          outcomes.push(outcome);
          if (outcomes.length === killAfter) child.kill('SIGKILL');
        }
      });
      await Promise.all(senders);
      if (Number.isFinite(killAfter)) kills += 1;
      for (const outcome of outcomes) if (outcome.status === 200) acknowledged.add(outcome.id);
      remaining = ids.filter((id) => !acknowledged.has(id));
      child.kill('SIGKILL');
      await exited(child);
      // Right after the kill: everything acknowledged so far is there.
      const stored = await db.pool.query<{ delivery_id: string }>(
        `SELECT delivery_id FROM ${schema}.events`,
      );
      const storedIds = new Set(stored.rows.map((row) => row.delivery_id));
      expect([...acknowledged].filter((id) => !storedIds.has(id))).toEqual([]);
    }
    expect(kills).toBe(5);
    const rows = await db.pool.query<{ delivery_id: string; n: string }>(
      `SELECT delivery_id, count(*) AS n FROM ${schema}.events GROUP BY delivery_id`,
    );
    expect(rows.rows.every((row) => row.n === '1')).toBe(true);
    expect(new Set(rows.rows.map((row) => row.delivery_id))).toEqual(new Set(ids));
  });

  it('two servers at once, given the same deliveries, store each once', async () => {
    const schema = 'two_servers';
    (await migrate(db.pool, { schema }))._unsafeUnwrap();
    const a = await startWebhookServer(schema);
    const b = await startWebhookServer(schema);
    try {
      const ids = Array.from({ length: 200 }, (_, i) => `t-${i}`);
      const outcomes = await Promise.all(
        ids.flatMap((id) => [deliver(a.url, id), deliver(b.url, id)]),
      );
      expect(outcomes.every((o) => o.status === 200)).toBe(true);
      const count = await db.pool.query<{ n: string; ids: string }>(
        `SELECT count(*) AS n, count(DISTINCT delivery_id) AS ids FROM ${schema}.events`,
      );
      expect(count.rows[0]).toEqual({ n: '200', ids: '200' });
    } finally {
      a.child.kill('SIGTERM');
      b.child.kill('SIGTERM');
      await Promise.all([exited(a.child), exited(b.child)]);
    }
  });
});
