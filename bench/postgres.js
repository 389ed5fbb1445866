// PostgreSQL benchmarks (npm run bench:postgres): `signfold pg import` and
// `signfold pg work --drain` on a generated 1M-event envelope log, whole processes, against a
// throwaway server with default durability (fsync on, synchronous_commit on); then the webhook
// recipe under an open-loop load of 500 requests/s (after --warmup seconds at the same rate, not
// counted). Medians of --rounds runs. --only batch|live runs one half.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startPostgres } from '../scripts/throwaway-postgres.js';
import { generateEvents, writeNdjson } from './generate-stream.js';

const { values: opts } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '3' },
    rate: { type: 'string', default: '500' },
    seconds: { type: 'string', default: '10' },
    only: { type: 'string' },
    warmup: { type: 'string', default: '2' },
  },
});
const EVENTS = Number(opts.events);
const ROUNDS = Number(opts.rounds);
const RATE = Number(opts.rate);
const SECONDS = Number(opts.seconds);
const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli/main.js');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const fmt = (n) => Math.round(n).toLocaleString('en-US');

/** Runs the CLI, returns [ms, stdout]. */
const timed = (args) => {
  const start = performance.now();
  const stdout = execFileSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  return [performance.now() - start, stdout];
};

/** `pg import` and `pg work --drain` on a generated envelope log, compared with `replay`. */
const batchBench = async (server, dir) => {
  const logPath = join(dir, 'events.ndjson');
  const events = function* () {
    let n = 0;
    for (const e of generateEvents({ seed: 8, signRequests: Math.ceil(EVENTS / 6) + 10 })) {
      if (n++ >= EVENTS) return;
      yield e;
    }
  };
  const { lines, bytes } = writeNdjson(logPath, events(), { envelope: true });
  console.log(`log: ${fmt(lines)} envelope lines, ${fmt(bytes / 1e6)} MB`);
  const imports = [];
  const works = [];
  const replays = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const url = await server.createDatabase(`bench_${round}`);
    timed(['pg', 'migrate', '--database', url]);
    const [importMs, imported] = timed(['pg', 'import', logPath, '--database', url]);
    const [workMs, worked] = timed(['pg', 'work', '--drain', '--database', url]);
    const [replayMs, replayed] = timed(['replay', logPath, '--json']);
    const applied = JSON.parse(replayed).stats.applied;
    if (!worked.includes(` ${applied} applied`))
      throw new Error(`work and replay differ:\n${worked}`);
    imports.push(importMs);
    works.push(workMs);
    replays.push(replayMs);
    console.log(
      `round ${round + 1}: import ${fmt(importMs)} ms, work ${fmt(workMs)} ms, replay ${fmt(replayMs)} ms (${imported.split('\n')[0]})`,
    );
  }
  const importRate = (lines * 1000) / median(imports);
  const workRate = (lines * 1000) / median(works);
  console.log(
    `pg import:        ${fmt(median(imports))} ms median, ${fmt(importRate)} events/s (target ≥ 50,000)`,
  );
  console.log(
    `pg work --drain:  ${fmt(median(works))} ms median, ${fmt(workRate)} events/s (target ≥ 50,000)`,
  );
  console.log(`replay (memory):  ${fmt(median(replays))} ms median, for comparison`);
};

/** Sends `count` deliveries on an open-loop schedule of RATE per second; resolves with their answers. */
const openLoop = async (port, agent, body, first, count) => {
  const send = (id) =>
    new Promise((resolve) => {
      const start = performance.now();
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/webhooks',
          method: 'POST',
          agent,
          headers: { 'x-delivery-id': `live-${id}` },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ ms: performance.now() - start, status: res.statusCode }));
        },
      );
      req.on('error', () => resolve({ ms: performance.now() - start, status: 0 }));
      req.end(body);
    });
  const started = performance.now();
  const pending = [];
  for (let i = 0; i < count; i += 1) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(send(first + i));
  }
  return Promise.all(pending);
};

const latency = (label, results) => {
  const ok = results.filter((r) => r.status === 200).map((r) => r.ms);
  console.log(
    `${label}: ${fmt(results.length)} requests at ${RATE}/s: ${ok.length} ok, ` +
      `p50 ${percentile(ok, 50).toFixed(1)} ms, p99 ${percentile(ok, 99).toFixed(1)} ms, max ${Math.max(...ok).toFixed(1)} ms`,
  );
};

/** The webhook recipe on PostgreSQL under an open-loop load: append-to-200 latency. */
const liveBench = async (server) => {
  const url = await server.createDatabase('bench_live');
  timed(['pg', 'migrate', '--database', url]);
  const child = spawn(process.execPath, [join(ROOT, 'examples/webhook-server-pg.js')], {
    env: { ...process.env, DATABASE_URL: url, PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const port = await new Promise((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        const found = /127\.0\.0\.1:(\d+)/.exec(String(chunk));
        if (found) resolve(Number(found[1]));
      });
      child.once('exit', () => reject(new Error('webhook server exited')));
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 128 });
    const body = JSON.stringify([...generateEvents({ seed: 3, signRequests: 2 })][0]);
    const warm = RATE * Number(opts.warmup);
    latency('webhook warm-up (not counted)', await openLoop(port, agent, body, 0, warm));
    latency(
      'webhook (PostgreSQL, fsync on, target p99 < 20 ms)',
      await openLoop(port, agent, body, warm, RATE * SECONDS),
    );
    agent.destroy();
  } finally {
    child.kill('SIGTERM');
  }
};

const dir = mkdtempSync(join(tmpdir(), 'signfold-bench-pg-'));
const server = await startPostgres();
try {
  if (opts.only !== 'live') await batchBench(server, dir);
  if (opts.only !== 'batch') await liveBench(server);
} finally {
  server.stop();
  rmSync(dir, { recursive: true, force: true });
}
