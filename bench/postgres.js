// PostgreSQL benchmarks (npm run bench:postgres): `signfold pg import` and
// `signfold pg work --drain` on a generated 1M-event envelope log, whole processes, against a
// throwaway server with default durability (fsync on, synchronous_commit on); then the webhook
// recipe under an open-loop load of 500 requests/s (after --warmup seconds at the same rate, not
// counted). Medians of --rounds runs. --only batch|live runs one half.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
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
  return {
    lines,
    bytes,
    importMs: median(imports),
    importRate,
    workMs: median(works),
    workRate,
    replayMs: median(replays),
  };
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
  const figures = {
    count: results.length,
    ok: ok.length,
    p50: percentile(ok, 50),
    p99: percentile(ok, 99),
    max: Math.max(...ok),
  };
  console.log(
    `${label}: ${fmt(figures.count)} requests at ${RATE}/s: ${figures.ok} ok, ` +
      `p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms, max ${figures.max.toFixed(1)} ms`,
  );
  return figures;
};

/** The webhook recipe on PostgreSQL under an open-loop load: append-to-200 latency. */
const liveBench = async (server) => {
  const url = await server.createDatabase('bench_live');
  timed(['pg', 'migrate', '--database', url]);
  // Unsigned: this measures the path from the append to the 200, as before.
  const child = spawn(
    process.execPath,
    [join(ROOT, 'examples/webhook-server-pg.js'), '--insecure-no-signature'],
    {
      env: { ...process.env, DATABASE_URL: url, PORT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
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
    const warmed = latency(
      'webhook warm-up (not counted)',
      await openLoop(port, agent, body, 0, warm),
    );
    const measured = latency(
      'webhook (PostgreSQL, fsync on, target p99 < 20 ms)',
      await openLoop(port, agent, body, warm, RATE * SECONDS),
    );
    agent.destroy();
    return { warm: warmed, main: measured };
  } finally {
    child.kill('SIGTERM');
  }
};

/** Replaces this benchmark's section of bench/RESULTS.md (bench/run.js keeps it). */
const writeResults = (batch, live) => {
  const file = join(ROOT, 'bench/RESULTS.md');
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  const marker = '<!-- bench/postgres.js -->';
  const start = previous.indexOf(marker);
  const next = start === -1 ? -1 : previous.indexOf('<!-- bench/', start + marker.length);
  const before = start === -1 ? previous.trimEnd() : previous.slice(0, start).trimEnd();
  const after = next === -1 ? '' : `\n\n${previous.slice(next).trimEnd()}`;
  const section = `${marker}
## PostgreSQL (bench/postgres.js)

Generated by \`npm run bench:postgres\`: whole processes (\`signfold pg import\`, \`signfold pg work
--drain\`, \`signfold replay\`) against a throwaway PostgreSQL 15 server with its default settings
(fsync on, \`synchronous_commit\` on, 128 MB shared buffers), ${ROUNDS} rounds, medians; the server and the
client share the machine.

- date: ${new Date().toISOString().slice(0, 10)}
- machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB; load average at the end ${loadavg()
    .map((n) => n.toFixed(1))
    .join(' ')}
- Node ${process.version}

| what | median | events/s | target | met |
|---|---:|---:|---:|:---:|
| \`pg import\` of ${fmt(batch.lines)} envelope lines (${fmt(batch.bytes / 1e6)} MB) | ${fmt(batch.importMs)} ms | ${fmt(batch.importRate)} | ≥ 50,000 | ${batch.importRate >= 50000 ? 'yes' : 'no'} |
| \`pg work --drain\` (rebuild all projections) | ${fmt(batch.workMs)} ms | ${fmt(batch.workRate)} | ≥ 50,000 | ${batch.workRate >= 50000 ? 'yes' : 'no'} |
| \`replay\` of the same file, in memory, for comparison | ${fmt(batch.replayMs)} ms | ${fmt((batch.lines * 1000) / batch.replayMs)} | | |

Webhook recipe (\`examples/webhook-server-pg.js\`), one process, append committed before the 200,
open loop at ${RATE} requests/s for ${SECONDS} s after a ${opts.warmup} s warm-up at the same rate:

| | requests | ok | p50 | p99 | max | target p99 | met |
|---|---:|---:|---:|---:|---:|---:|:---:|
| warm-up (not counted) | ${fmt(live.warm.count)} | ${fmt(live.warm.ok)} | ${live.warm.p50.toFixed(1)} ms | ${live.warm.p99.toFixed(1)} ms | ${live.warm.max.toFixed(1)} ms | | |
| measured | ${fmt(live.main.count)} | ${fmt(live.main.ok)} | ${live.main.p50.toFixed(1)} ms | ${live.main.p99.toFixed(1)} ms | ${live.main.max.toFixed(1)} ms | < 20 ms | ${live.main.p99 < 20 ? 'yes' : 'no'} |
`;
  writeFileSync(file, `${before}\n\n${section}${after}\n`);
  console.log('wrote bench/RESULTS.md');
};

const dir = mkdtempSync(join(tmpdir(), 'signfold-bench-pg-'));
const server = await startPostgres();
try {
  const batch = opts.only === 'live' ? undefined : await batchBench(server, dir);
  // Its own server: the batch runs leave gigabytes for the checkpointer and autovacuum to process.
  let live;
  if (opts.only !== 'batch') {
    const quiet = await startPostgres();
    try {
      live = await liveBench(quiet);
    } finally {
      await quiet.stop();
    }
  }
  if (batch !== undefined && live !== undefined) writeResults(batch, live);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
