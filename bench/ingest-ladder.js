// The ingestion ladder (part of `npm run bench`; alone: `npm run bench:ingest`). How far each server
// holds every answer 2xx and p99 < 20 ms from the scheduled send, under an open loop of signed
// ~400-byte deliveries, on a ladder of rates:
// - `signfold serve --log` (fdatasync before each answer, concurrent appends committed in groups);
// - `signfold serve --database` on a throwaway PostgreSQL (--no-database skips it);
// - bench/ingest-fsync-server.js: node:http appending each body to a file and fdatasyncing before 200;
// - bench/ingest-null-server.js: node:http answering 200 without storing.
// Every run is a fresh process and a fresh file (or database). At each rate the servers still
// climbing run one after another, in an order that rotates with the round; a server stops climbing
// in a round at its first rate that fails (but always runs 3,000/s, for the p50/p99 and the CPU per
// request there). The highest passing rate is the median over the rounds, with its range.
// Writes its section of bench/RESULTS.md (marked <!-- bench/ingest-ladder.js -->) unless --quick,
// --only or --no-write. `--node-args="--cpu-prof --cpu-prof-dir=DIR"` passes flags to `serve`;
// `--baseline PATH/dist/cli/main.js [--baseline-label TEXT]` adds another build's `serve --log` as one
// more server, to compare builds side by side.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startPostgres } from '../scripts/throwaway-postgres.js';
import { cpuSecondsOf } from './process-cpu.js';
import { replaceResultsSection } from './results-section.js';
import { eventOfSize } from './serve-event.js';
import { openLoop, summarize } from './serve-load.js';
import { CLI, listeningPort } from './serve-process.js';
import { deliveryHeaders, SECRET_ENV } from './serve-signature.js';

const { values: opts } = parseArgs({
  options: {
    rates: { type: 'string', default: '500,1000,2000,3000,4000,6000,8000,10000,13000,16000' },
    seconds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '5' },
    only: { type: 'string' },
    'no-database': { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    /** Run every rate for every server, past failures (to compare at fixed rates). */
    'no-climb': { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
    'node-args': { type: 'string', default: '' },
    /** Another build's dist/cli/main.js, run as one more server (`serve --log`) to compare builds. */
    baseline: { type: 'string' },
    /** How the section names the --baseline build (default: its path). */
    'baseline-label': { type: 'string' },
  },
});
const QUICK = opts.quick;
const RATES = (QUICK ? '1000,3000,6000,10000' : opts.rates).split(',').map(Number);
const SECONDS = QUICK ? 1 : Number(opts.seconds);
const WARMUP = QUICK ? 1 : Number(opts.warmup);
const ROUNDS = QUICK ? 1 : Number(opts.rounds);
const REFERENCE_RATE = 3000;
const TARGET_P99_MS = 20;
const SECRET = 'bench-secret';
const NODE_ARGS = opts['node-args'].split(' ').filter((a) => a !== '');
const WITH_DATABASE = !opts['no-database'];
const loadAtStart = loadavg().map((n) => n.toFixed(2));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const ms = (n) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(1));
const log = (...a) => console.log(...a);

/** The servers compared: the command line of one run in `dir`, and its environment. */
const SERVERS = [
  {
    name: 'signfold serve --log',
    argv: (dir, run) => [CLI, 'serve', '--log', join(dir, `log-${run}.ndjson`), '--port', '0'],
  },
  {
    name: 'signfold serve --database',
    database: true,
    argv: (_dir, _run, url) => [CLI, 'serve', '--database', url, '--port', '0'],
  },
  ...(opts.baseline === undefined
    ? []
    : [
        {
          name: `signfold serve --log (${opts['baseline-label'] ?? opts.baseline})`,
          argv: (dir, run) => [
            opts.baseline,
            'serve',
            '--log',
            join(dir, `base-${run}.ndjson`),
            '--port',
            '0',
          ],
        },
      ]),
  {
    name: 'node:http append + fdatasync',
    reference: true,
    argv: (dir, run) => [
      join(import.meta.dirname, 'ingest-fsync-server.js'),
      join(dir, `naive-${run}.ndjson`),
    ],
  },
  {
    name: 'node:http 200, nothing stored',
    reference: true,
    argv: () => [join(import.meta.dirname, 'ingest-null-server.js')],
  },
].filter(
  (s) =>
    (WITH_DATABASE || s.database !== true) &&
    (opts.only === undefined || opts.only.split(',').some((part) => s.name.includes(part))),
);

/**
 * Starts one server and resolves with its URL, pid and a stop; its stderr (serve's request lines)
 * goes to a file, as to a log collector, not through this process.
 */
const start = (argv, dir, run) =>
  new Promise((resolve, reject) => {
    const errFile = join(dir, `stderr-${run}.log`);
    const errStream = createWriteStream(errFile);
    errStream.on('open', (fd) => {
      const child = spawn(process.execPath, [...(argv[1] === 'serve' ? NODE_ARGS : []), ...argv], {
        env: { ...process.env, [SECRET_ENV]: SECRET },
        stdio: ['ignore', 'pipe', fd],
      });
      let stdout = '';
      const exited = new Promise((done) =>
        child.on('close', (code, signal) => done({ code, signal })),
      );
      const timer = setTimeout(
        () => reject(new Error(`did not listen: ${argv.join(' ')}`)),
        20_000,
      );
      void exited.then(({ code }) =>
        reject(new Error(`exited ${code} before listening: ${argv.join(' ')}`)),
      );
      child.stdout.setEncoding('utf8').on('data', (chunk) => {
        stdout += chunk;
        const port = listeningPort(stdout);
        if (port === undefined) return;
        clearTimeout(timer);
        resolve({
          pid: child.pid,
          url: `http://127.0.0.1:${port}/webhooks`,
          stop: async () => {
            child.kill('SIGTERM');
            const ended = await exited;
            errStream.close();
            return ended;
          },
        });
      });
    });
    errStream.on('error', reject);
  });

/** Signed deliveries with distinct ids, built before the run so signing does not load the sender. */
const deliveries = (offset, count) =>
  Array.from({ length: count }, (_, i) => {
    const body = eventOfSize(offset + i + 1, 400);
    const deliveryId = `ladder-${offset + i}`;
    return { body, deliveryId, headers: deliveryHeaders(body, { secret: SECRET, deliveryId }) };
  });

/** One run: a fresh process and store, a warm-up at the rate, then the measured open loop. */
const runOnce = async (server, rate, dir, run, postgres) => {
  const url = server.database ? await postgres.migrated(`ladder_${run}`) : undefined;
  const started = await start(server.argv(dir, run, url), dir, run);
  try {
    const warm = Math.max(1, Math.round(rate * WARMUP));
    const count = Math.round(rate * SECONDS);
    const warmRequests = deliveries(0, warm);
    await openLoop({ url: started.url, rate, count: warm, make: (i) => warmRequests[i] });
    const requests = deliveries(warm, count);
    const cpuBefore = cpuSecondsOf(started.pid);
    const results = await openLoop({
      url: started.url,
      rate,
      count,
      seconds: SECONDS + 1,
      timeoutMs: 5_000,
      make: (i) => requests[i],
    });
    const summary = summarize(results);
    const late = results
      .filter((r) => r.status >= 200 && r.status < 300)
      .map((r) => r.fromScheduleMs);
    late.sort((a, b) => a - b);
    const p50FromSchedule = late[Math.floor(late.length / 2)];
    return {
      ...summary,
      p50FromSchedule,
      passed: summary.errors === 0 && summary.p99FromSchedule < TARGET_P99_MS,
      cpuUs: ((cpuSecondsOf(started.pid) - cpuBefore) * 1e6) / summary.sent,
      load: loadavg()[0],
    };
  } finally {
    await started.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

/** A throwaway PostgreSQL whose databases are migrated by `signfold pg migrate`. */
const startDatabase = async () => {
  if (!SERVERS.some((s) => s.database)) return undefined;
  const server = await startPostgres();
  const { execFileSync } = await import('node:child_process');
  return {
    stop: () => server.stop(),
    migrated: async (name) => {
      const url = await server.createDatabase(name);
      execFileSync(process.execPath, [CLI, 'pg', 'migrate', '--database', url]);
      return url;
    },
  };
};

const ladder = async () => {
  const postgres = await startDatabase();
  const figures = new Map(
    SERVERS.map((s) => [s.name, { highest: [], atReference: [], byRate: new Map() }]),
  );
  let run = 0;
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      const climbing = new Set(SERVERS.map((s) => s.name));
      const highest = new Map(SERVERS.map((s) => [s.name, 0]));
      const order = SERVERS.map((_, i) => SERVERS[(i + round) % SERVERS.length]);
      for (const rate of RATES) {
        for (const server of order) {
          if (!climbing.has(server.name) && rate !== REFERENCE_RATE && !opts['no-climb']) continue;
          run += 1;
          const dir = mkdtempSync(join(tmpdir(), 'signfold-ladder-'));
          const s = await runOnce(server, rate, dir, run, postgres);
          log(
            `round ${round + 1}: ${server.name} at ${fmt(rate)}/s: ${s.passed ? 'pass' : 'FAIL'}, ` +
              `${s.ok}/${s.sent} 2xx, p50 ${ms(s.p50FromSchedule)} ms, p99 ${ms(s.p99FromSchedule)} ms from schedule ` +
              `(max ${ms(s.max)}), CPU ${fmt(s.cpuUs)} µs/request, load ${s.load.toFixed(1)}`,
          );
          const mine = figures.get(server.name);
          if (rate === REFERENCE_RATE) mine.atReference.push(s);
          mine.byRate.set(rate, [...(mine.byRate.get(rate) ?? []), s]);
          if (climbing.has(server.name)) {
            if (s.passed) highest.set(server.name, rate);
            else climbing.delete(server.name);
          }
        }
        if (climbing.size === 0 && rate >= REFERENCE_RATE && !opts['no-climb']) break;
      }
      for (const [name, rate] of highest) figures.get(name).highest.push(rate);
      log(
        `round ${round + 1}: highest ${[...highest].map(([n, r]) => `${n} ${fmt(r)}/s`).join(', ')}`,
      );
    }
  } finally {
    await postgres?.stop();
  }
  return SERVERS.map((s) => {
    const { highest, atReference, byRate } = figures.get(s.name);
    return {
      name: s.name,
      byRate,
      highest,
      median: median(highest),
      p50: median(atReference.map((r) => r.p50FromSchedule)),
      p99: median(atReference.map((r) => r.p99FromSchedule)),
      p99Range: [
        Math.min(...atReference.map((r) => r.p99FromSchedule)),
        Math.max(...atReference.map((r) => r.p99FromSchedule)),
      ],
      cpuUs: median(atReference.map((r) => r.cpuUs)),
      loads: atReference.map((r) => r.load),
    };
  });
};

const section = (rows) => {
  const row = (r) =>
    `| ${r.name} | **${fmt(r.median)}/s** (${fmt(Math.min(...r.highest))}–${fmt(Math.max(...r.highest))}) | ${ms(r.p50)} / ${ms(r.p99)} ms (p99 ${ms(r.p99Range[0])}–${ms(r.p99Range[1])}) | ${fmt(r.cpuUs)} µs |`;
  const roundRow = (r) => `| ${r.name} | ${r.highest.map((h) => fmt(h)).join(' | ')} |`;
  const heads = rows[0]?.highest.map((_, i) => `round ${i + 1}`) ?? [];
  const rateCell = (runs) =>
    runs === undefined
      ? ''
      : `${ms(median(runs.map((r) => r.p99FromSchedule)))} (${runs.length}${runs.every((r) => r.errors === 0) ? '' : ', not all 2xx'})`;
  const rateRow = (r) =>
    `| ${r.name} | ${RATES.map((rate) => rateCell(r.byRate.get(rate))).join(' | ')} |`;
  return `<!-- bench/ingest-ladder.js -->
## Ingestion ladder (bench/ingest-ladder.js)

Generated by \`node bench/ingest-ladder.js\` (\`npm run bench:ingest\`; part of \`npm run bench\`). Each
server as a fresh process with a fresh file or database per run, on 127.0.0.1, under an open loop
(requests sent on a fixed schedule whatever the answers, keep-alive connections) of signed ~400-byte
deliveries with distinct delivery ids: ${WARMUP} s of warm-up then ${SECONDS} s measured at each rate of
${RATES.map(fmt).join(', ')}/s. A rate passes when every answer is 2xx and the p99 from the scheduled send
is under ${TARGET_P99_MS} ms; a server climbs until its first failing rate. ${ROUNDS} rounds; at each rate
the servers run one after another in an order that rotates with the round. The two node:http servers
are the references (bench/ingest-fsync-server.js, bench/ingest-null-server.js: a few lines each); the
first fdatasyncs every request on its own, as it arrives. \`serve\` on PostgreSQL: a throwaway
PostgreSQL 15 with default settings (fsync and \`synchronous_commit\` on) on the same machine.

- date: ${new Date().toISOString().slice(0, 10)}
- machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, shared with other work
- load average (1, 5, 15 min) at start / end: ${loadAtStart.join(' ')} / ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}
- Node ${process.version}

| server | highest rate with every answer 2xx and p99 < ${TARGET_P99_MS} ms: median (range) | p50 / p99 at ${fmt(REFERENCE_RATE)}/s, from schedule (median, p99 range) | CPU per request at ${fmt(REFERENCE_RATE)}/s (median) |
|---|---:|---:|---:|
${rows.map(row).join('\n')}

Highest passing rate of each round (0: not even ${fmt(RATES[0])}/s):

| server | ${heads.join(' | ')} |
|---|${heads.map(() => '---:').join('|')}|
${rows.map(roundRow).join('\n')}

The p99 from the scheduled send at each rate, in ms: the median of the rounds that ran it (how many in
brackets; a server stops climbing at its first failing rate, so the higher rates have fewer rounds):

| server | ${RATES.map((rate) => `${fmt(rate)}/s`).join(' | ')} |
|---|${RATES.map(() => '---:').join('|')}|
${rows.map(rateRow).join('\n')}

CPU per request: user + system time of the server process (from /proc) over the measured window,
divided by the requests sent; the load generator runs in a process of its own on the same two cores.
`;
};

const rows = await ladder();
const text = section(rows);
log(`\n${text}`);
if (!QUICK && !opts['no-write'] && opts.only === undefined) {
  replaceResultsSection('<!-- bench/ingest-ladder.js -->', text);
  log('wrote the ingestion ladder section of bench/RESULTS.md');
}
