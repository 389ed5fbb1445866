// Reactors on PostgreSQL (npm run bench): effects/s of the effects table with 1 and 2 workers and a
// no-op execute (target ≥ 5,000), and the time from an append's commit to the start of its effect's
// execute, with NOTIFY, for one following worker (target p99 < 100 ms). A throwaway server;
// medians of --rounds. Writes its section of bench/RESULTS.md unless --no-write.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startPostgres } from '../scripts/throwaway-postgres.js';
import { generateEvents, writeNdjson } from './generate-stream.js';
import { replaceResultsSection } from './results-section.js';

const { values: opts } = parseArgs({
  options: {
    requests: { type: 'string', default: '3000' },
    /** The log the rebuild cost is measured on: larger, so a process's start-up weighs little. */
    'rebuild-requests': { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '3' },
    'rebuild-rounds': { type: 'string', default: '7' },
    rate: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '10' },
    'no-write': { type: 'boolean', default: false },
  },
});
const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli/main.js');
const NO_OP = join(ROOT, 'bench/reactors/no-op.mjs');
const LATENCY = join(ROOT, 'bench/reactors/report-latency.mjs');
const SILENT = join(ROOT, 'bench/reactors/silent.mjs');
const { openPostgresEventLog } = await import(join(ROOT, 'dist/postgres/index.js'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percentile = (xs, p) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const cli = (args, env = process.env) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${args.join(' ')}: ${stderr}`)),
    );
  });

const load = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
const server = await startPostgres();
const log = join(tmpdir(), `signfold-bench-reactors-pg-${process.pid}.ndjson`);
writeNdjson(log, [...generateEvents({ seed: 13, signRequests: Number(opts.requests) })], {
  envelope: true,
  seed: 5,
});

/** One drain of the whole log by `workers` processes; effects/s over the execution window. */
const throughput = async (workers, round) => {
  const url = await server.createDatabase(`effects_${workers}_${round}`);
  await cli(['pg', 'migrate', '--database', url, '--partitions', '8']);
  await cli(['pg', 'import', log, '--database', url]);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, () =>
      cli(['pg', 'work', '--database', url, '--drain', '--reactors', NO_OP]),
    ),
  );
  const wallMs = performance.now() - started;
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const { rows } = await pool.query(
    `SELECT count(*)::int AS done, extract(epoch FROM max(updated_at) - min(updated_at)) * 1000 AS window_ms
       FROM signfold.effects WHERE state = 'done'`,
  );
  await pool.end();
  return { done: rows[0].done, windowMs: Number(rows[0].window_ms), wallMs };
};

/** A database holding the rebuild log, imported once; each rebuild starts from a copy of it. */
const rebuildTemplate = async () => {
  const rebuildLog = join(tmpdir(), `signfold-bench-reactors-pg-rebuild-${process.pid}.ndjson`);
  const events = [...generateEvents({ seed: 13, signRequests: Number(opts['rebuild-requests']) })];
  writeNdjson(rebuildLog, events, { envelope: true, seed: 5 });
  const url = await server.createDatabase('rebuild_template');
  await cli(['pg', 'migrate', '--database', url, '--partitions', '8']);
  await cli(['pg', 'import', rebuildLog, '--database', url]);
  return { events: events.length };
};

/** Wall time of one `pg work --drain` of the whole log by one process, with `extra` flags. */
const rebuild = async (name, extra) => {
  const admin = new pg.Client(server.url);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE rebuild_template`);
  await admin.end();
  const url = server.url.replace(/\/postgres$/, `/${name}`);
  const started = performance.now();
  await cli(['pg', 'work', '--database', url, '--drain', ...extra]);
  return performance.now() - started;
};

/** Appends at RATE/s for SECONDS to a followed schema; the lag of each effect's start after its append's commit. */
const latency = async () => {
  const url = await server.createDatabase('latency');
  await cli(['pg', 'migrate', '--database', url, '--partitions', '8']);
  const committed = new Map();
  const lags = [];
  const sink = createServer((request, response) => {
    const position = Number(request.url?.slice(1));
    const at = committed.get(position);
    if (at !== undefined) lags.push(performance.now() - at);
    response.end('ok');
  });
  await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const env = { ...process.env, LATENCY_URL: `http://127.0.0.1:${sink.address().port}` };
  const worker = spawn(
    process.execPath,
    [CLI, 'pg', 'work', '--database', url, '--reactors', LATENCY],
    {
      env,
      stdio: 'ignore',
    },
  );
  await sleep(1500);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const opened = await openPostgresEventLog(pool);
  const eventLog = opened._unsafeUnwrap();
  const source = generateEvents({ seed: 17, signRequests: 100_000 });
  const rate = Number(opts.rate);
  const count = rate * Number(opts.seconds);
  const start = performance.now();
  const pending = [];
  for (let i = 0; i < count; i += 1) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(
      eventLog.append(source.next().value, { deliveryId: `lat-${i}` }).then((stored) => {
        if (stored.isOk() && stored.value.kind === 'appended')
          committed.set(stored.value.position, performance.now());
      }),
    );
  }
  await Promise.all(pending);
  await sleep(2000);
  worker.kill('SIGTERM');
  await new Promise((resolve) => worker.on('close', resolve));
  await eventLog.close();
  await pool.end();
  sink.close();
  return {
    appended: committed.size,
    measured: lags.length,
    p50: percentile(lags, 50),
    p99: percentile(lags, 99),
    max: Math.max(...lags),
  };
};

try {
  const rounds = Number(opts.rounds);
  const runs = { 1: [], 2: [] };
  for (let round = 0; round < rounds; round += 1) {
    for (const workers of [1, 2]) runs[workers].push(await throughput(workers, round));
  }
  const rebuildLog = await rebuildTemplate();
  const plainMs = [];
  const silentMs = [];
  for (let round = 0; round < Number(opts['rebuild-rounds']); round += 1) {
    // Alternating which goes first, so a drift of the shared machine favours neither.
    const pair = [
      ['plain', []],
      ['silent', ['--reactors', SILENT]],
    ];
    if (round % 2 === 1) pair.reverse();
    for (const [kind, extra] of pair) {
      (kind === 'plain' ? plainMs : silentMs).push(await rebuild(`${kind}_${round}`, extra));
    }
  }
  const costRatio = median(plainMs) / median(silentMs);
  const pairedRatio = median(plainMs.map((plain, i) => plain / silentMs[i]));
  const lat = await latency();
  const rows = [1, 2].map((workers) => {
    const list = runs[workers];
    const rate = median(list.map((r) => r.done / (r.windowMs / 1000)));
    return `| ${workers} | ${fmt(list[0].done)} | ${fmt(rate)} | ${fmt(median(list.map((r) => r.wallMs)))} | ≥ 5,000 | ${rate >= 5000 ? 'yes' : 'no'} |`;
  });
  const section = `<!-- bench/reactors-postgres.js -->
## Reactors on PostgreSQL (bench/reactors-postgres.js)

A throwaway PostgreSQL 15 on the same 2-core machine; load average at start ${load}. The log: ${fmt(Number(opts.requests))} generated sign requests (seed 13), 8 partitions, one no-op effect per applied event (bench/reactors/no-op.mjs). Each round imports it into a new database and drains it with \`pg work --drain --reactors\` by 1 or 2 processes at once; effects/s is the number of effects done over the time between the first and the last completion (\`updated_at\`), medians of ${rounds} rounds.

| workers | effects | effects/s (median) | whole drain ms (projection + enqueue + execute) | target | met |
|---:|---:|---:|---:|---:|:---:|
${rows.join('\n')}

A rebuild (\`pg work --drain\` by one process of a log of ${fmt(Number(opts['rebuild-requests']))} generated sign requests, ${fmt(rebuildLog.events)} events, each round from a copy of one imported database; whole-process wall time, ${opts['rebuild-rounds']} rounds, the order alternating): plain median ${fmt(median(plainMs))} ms (${fmt(rebuildLog.events / (median(plainMs) / 1000))} events/s), with 2 reactors whose \`react\` returns \`[]\` ${fmt(median(silentMs))} ms: **${costRatio.toFixed(2)} ×** the plain rate (median of the per-round ratios ${pairedRatio.toFixed(2)}; target ≥ 0.90: ${costRatio >= 0.9 ? 'met' : 'missed'}). Rounds, plain: ${plainMs.map((ms) => fmt(ms)).join(', ')} ms; with reactors: ${silentMs.map((ms) => fmt(ms)).join(', ')} ms.

From append to the start of \`execute\`, with NOTIFY: one following \`pg work --reactors\` (bench/reactors/report-latency.mjs: \`execute\` posts its position to this process), ${fmt(lat.appended)} appends at ${opts.rate}/s; lag = arrival of the post − the append's commit: p50 ${lat.p50.toFixed(1)} ms, **p99 ${lat.p99.toFixed(1)} ms** (target < 100 ms: ${lat.p99 < 100 ? 'met' : 'missed'}), max ${lat.max.toFixed(1)} ms, ${fmt(lat.measured)} measured.
`;
  console.log(section);
  if (!opts['no-write']) replaceResultsSection('<!-- bench/reactors-postgres.js -->', section);
} finally {
  await server.stop();
}
