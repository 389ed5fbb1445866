// PostgreSQL live end to end against Emmett (issue 35; npm run bench:emmett, part of npm run bench).
//
// One throwaway PostgreSQL server (default settings: fsync on, synchronous_commit on). For each
// round and each appender count (1 and 8), one run of each side, alternating which goes first,
// each in a fresh database of its own:
//
// - signfold: `migrate` (16 partitions), one `signfold pg work` process following (stderr through
//   a pipe, as under a supervisor), then --events generated events appended one call per event
//   through `openPostgresEventLog().append`. End to end: from the first append until every
//   partition's checkpoint is at or past the last appended position (polled every 2 ms once the
//   last append has committed; nothing is polled while appending).
// - Emmett 0.42 (`@event-driven-io/emmett-postgresql`): `getPostgreSQLEventStore` with three
//   inline projections (templates, sign requests, participants), one `appendToStream` per event
//   (stream `template-ID` or `sign-request-ID`). Inline projections commit with the append, so
//   end to end is from the first append until the last one resolves.
//
// - signfold appends only (the ceiling): the same appends with no `pg work` running, end to end being
//   the appends alone. No projection can make the end-to-end rate higher than this, so it bounds the
//   ratio to Emmett that any worker could reach (recorded beside the ratio).
//
// The appenders split the events by stream (template or sign request id modulo the appender
// count), so each stream's events keep their order on both sides and two appenders never write
// one Emmett stream at once (which it would refuse). Every delivery id is distinct: the stream's
// redeliveries (2 %) are stored as events on both sides (no-ops for the projections).
//
// The Emmett projections are a fair, minimal equivalent of signfold's three tables: one SQL
// statement per event and projection (an upsert or a guarded UPDATE: status moves only from the
// state the event expects, view and download counters), no conflict tracking, no quarantine, no
// per-partition copy of the templates. See bench/README.md.
//
// Writes its section of bench/RESULTS.md unless --no-write. Options: --events N (default 20,000),
// --rounds N (default 5), --appenders 1,8, --profile DIR (a CPU profile of each pg work process
// there), --no-write.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { projections } from '@event-driven-io/emmett';
import { getPostgreSQLEventStore } from '@event-driven-io/emmett-postgresql';
import pg from 'pg';
import { startPostgres } from '../scripts/throwaway-postgres.js';
import { emmettProjections, emmettProjectionTablesSql } from './emmett-projections.js';
import { generateEvents } from './generate-stream.js';
import { replaceResultsSection } from './results-section.js';

const { values: opts } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    appenders: { type: 'string', default: '1,8' },
    profile: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});
const EVENTS = Number(opts.events);
const ROUNDS = Number(opts.rounds);
const APPENDERS = opts.appenders.split(',').map(Number);
const PARTITIONS = 16;
const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli/main.js');
const { migrate, openPostgresEventLog } = await import(join(ROOT, 'dist/postgres/index.js'));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const fmt = (n) => Math.round(n).toLocaleString('en-US');
/** CPU ms of a run as µs per event. */
const perEvent = (ms) => fmt((ms * 1000) / EVENTS);
const load = () => loadavg()[0];

/** utime, stime, cutime, cstime (clock ticks) and the parent of a process, from /proc. */
const statOf = (pid) => {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const n = (i) => Number(fields[i]);
  return { ppid: n(1), own: n(11) + n(12), children: n(13) + n(14) };
};
const TICK_MS = 10; // CLK_TCK 100 on Linux

/**
 * CPU ms of the server so far: the postmaster, its live processes, and the ones it reaped
 * (counted in its children's times). Another server on the machine is not counted.
 */
const serverCpuMs = (postmaster) => {
  let ticks = statOf(postmaster).own + statOf(postmaster).children;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = statOf(name);
      if (stat.ppid === postmaster) ticks += stat.own;
    } catch {
      // gone meanwhile
    }
  }
  return ticks * TICK_MS;
};
const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** The events of every run: the same, in the same order. */
const EVENT_LIST = (() => {
  const all = [];
  for (const event of generateEvents({ seed: 35, signRequests: Math.ceil(EVENTS / 9) + 50 })) {
    all.push(event);
    if (all.length === EVENTS) break;
  }
  if (all.length < EVENTS) throw new Error(`only ${all.length} events generated`);
  return all;
})();

/** A stream key per event: its template for template events, else its sign request. */
const streamOf = (event) =>
  event.type.startsWith('template-')
    ? { name: `template-${event.templateId}`, id: Number(event.templateId) }
    : { name: `sign-request-${event.signRequestId}`, id: Number(event.signRequestId) };

/** The event indexes of each of `count` appenders, split by stream (each stream's order kept). */
const lanesOf = (count) => {
  const lanes = Array.from({ length: count }, () => []);
  EVENT_LIST.forEach((event, i) => {
    lanes[streamOf(event).id % count].push(i);
  });
  return lanes;
};

/** Runs every lane concurrently, `appendOne(i)` per event in lane order; per-append latencies. */
const runLanes = async (lanes, appendOne) => {
  const latencies = [];
  await Promise.all(
    lanes.map(async (lane) => {
      for (const i of lane) {
        const began = performance.now();
        await appendOne(i);
        latencies.push(performance.now() - began);
      }
    }),
  );
  return latencies;
};

/** Waits until the worker holds every partition. */
const claimed = async (client) => {
  for (let tries = 0; ; tries += 1) {
    const { rows } = await client.query(
      'SELECT count(*) FILTER (WHERE owner IS NULL) AS free FROM signfold.partitions',
    );
    if (Number(rows[0].free) === 0) return;
    if (tries > 800) throw new Error('pg work did not claim the partitions');
    await sleep(25);
  }
};

/**
 * One signfold run in database `url`: events/s end to end and the append latencies. Without
 * `follow`, no worker runs: the appends alone (the ceiling of the end-to-end rate).
 */
const runSignfold = async (url, appenders, { follow = true } = {}) => {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const watcher = new pg.Client({ connectionString: url });
  let worker;
  try {
    (await migrate(pool, { partitions: PARTITIONS }))._unsafeUnwrap();
    const profile =
      opts.profile === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', opts.profile];
    await watcher.connect();
    if (follow) {
      worker = spawn(process.execPath, [...profile, CLI, 'pg', 'work', '--database', url], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      WORKERS.add(worker);
      worker.once('exit', () => WORKERS.delete(worker));
      worker.stderr.pipe(process.stderr);
      await claimed(watcher);
    }
    const log = (await openPostgresEventLog(pool))._unsafeUnwrap();
    // The connections and the ledger read happen before the clock starts, as Emmett's migration.
    (await log.ping())._unsafeUnwrap();
    let high = 0;
    const cpu = {
      server: serverCpuMs(POSTMASTER),
      client: ownCpuMs(),
      worker: worker === undefined ? 0 : workerCpuMs(worker),
    };
    const started = performance.now();
    const latencies = await runLanes(lanesOf(appenders), async (i) => {
      const stored = await log.append(EVENT_LIST[i], { deliveryId: `d-${i}` });
      if (stored.isErr()) throw new Error(stored.error.message);
      if (stored.value.position > high) high = stored.value.position;
    });
    const appended = performance.now();
    while (follow) {
      const { rows } = await watcher.query('SELECT min(position) AS low FROM signfold.partitions');
      if (Number(rows[0].low) >= high) break;
      await sleep(2);
    }
    const projected = performance.now();
    const used = {
      server: serverCpuMs(POSTMASTER) - cpu.server,
      client: ownCpuMs() - cpu.client,
      worker: worker === undefined ? 0 : workerCpuMs(worker) - cpu.worker,
    };
    await log.close();
    const { rows } = await watcher.query(
      `SELECT (SELECT count(*) FROM signfold.sign_requests) AS requests,
              (SELECT count(*) FROM signfold.participants) AS participants`,
    );
    return {
      rate: (EVENTS * 1000) / (projected - started),
      appendSeconds: (appended - started) / 1000,
      tailMs: projected - appended,
      latencies,
      rows: `${rows[0].requests} requests, ${rows[0].participants} participants`,
      used,
    };
  } finally {
    if (worker !== undefined && worker.exitCode === null) {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGTERM');
      await exited;
    }
    await watcher.end().catch(() => undefined);
    await pool.end();
  }
};

/** One Emmett run in database `url`: events/s end to end and the append latencies. */
const runEmmett = async (url, appenders) => {
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query(emmettProjectionTablesSql);
  await setup.end();
  const store = getPostgreSQLEventStore(url, {
    projections: projections.inline(emmettProjections),
  });
  try {
    // Its schema is created here, before the clock starts (it would be on the first append).
    await store.schema.migrate();
    const cpu = { server: serverCpuMs(POSTMASTER), client: ownCpuMs() };
    const started = performance.now();
    const latencies = await runLanes(lanesOf(appenders), async (i) => {
      const event = EVENT_LIST[i];
      await store.appendToStream(streamOf(event).name, [
        { type: event.type, data: event, metadata: { deliveryId: `d-${i}` } },
      ]);
    });
    const projected = performance.now();
    const used = {
      server: serverCpuMs(POSTMASTER) - cpu.server,
      client: ownCpuMs() - cpu.client,
      worker: 0,
    };
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    const { rows } = await check.query(
      `SELECT (SELECT count(*) FROM bench_sign_requests) AS requests,
              (SELECT count(*) FROM bench_participants) AS participants`,
    );
    await check.end();
    return {
      rate: (EVENTS * 1000) / (projected - started),
      appendSeconds: (projected - started) / 1000,
      tailMs: 0,
      latencies,
      rows: `${rows[0].requests} requests, ${rows[0].participants} participants`,
      used,
    };
  } finally {
    await store.close();
  }
};

/** CPU ms of the `pg work` process so far. */
const workerCpuMs = (worker) => statOf(worker.pid).own * TICK_MS;

const SIDES = {
  signfold: runSignfold,
  emmett: runEmmett,
  ceiling: (url, appenders) => runSignfold(url, appenders, { follow: false }),
};
/** The `pg work` processes running, for a stop half way. */
const WORKERS = new Set();

const server = await startPostgres();
// Stopped half way (Ctrl-C), it leaves no worker and no server behind.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const worker of WORKERS) worker.kill('SIGKILL');
    server.stop();
    process.exit(130);
  });
}
/** The server's postmaster, whose processes are the server's CPU (see serverCpuMs). */
const POSTMASTER = await (async () => {
  const client = new pg.Client({ connectionString: server.url });
  try {
    await client.connect();
    const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
    // Read while the backend lives: it exits with its connection.
    return statOf(rows[0].pid).ppid;
  } catch (cause) {
    server.stop();
    throw cause;
  } finally {
    await client.end().catch(() => undefined);
  }
})();
/** results[appenders] = [{ signfold, emmett, load }] per round */
const results = Object.fromEntries(APPENDERS.map((n) => [n, []]));
try {
  let database = 0;
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const appenders of APPENDERS) {
      // The ceiling runs last, out of the pair's alternation: it only bounds the ratio.
      const order = [
        ...(round % 2 === 1 ? ['signfold', 'emmett'] : ['emmett', 'signfold']),
        'ceiling',
      ];
      const pair = { load: [] };
      for (const side of order) {
        database += 1;
        const name = `${side}_${database}`;
        const url = await server.createDatabase(name);
        pair.load.push(load());
        const run = await SIDES[side](url, appenders);
        pair[side] = run;
        console.log(
          `round ${round}, ${appenders} appender(s), ${side}: ${fmt(run.rate)} events/s end to end ` +
            `(appends ${run.appendSeconds.toFixed(1)} s, then ${fmt(run.tailMs)} ms to project; ` +
            `append p50 ${percentile(run.latencies, 50).toFixed(1)} ms, p99 ${percentile(run.latencies, 99).toFixed(1)} ms; ` +
            `${run.rows}; CPU µs per event: server ${perEvent(run.used.server)}, appending process ${perEvent(run.used.client)}, pg work ${perEvent(run.used.worker)}; load ${load().toFixed(2)})`,
        );
        const admin = new pg.Client({ connectionString: server.url });
        await admin.connect();
        await admin.query(`DROP DATABASE ${name}`);
        await admin.end();
      }
      pair.load.push(load());
      pair.ratio = pair.signfold.rate / pair.emmett.rate;
      pair.ceilingRatio = pair.ceiling.rate / pair.emmett.rate;
      console.log(`round ${round}, ${appenders} appender(s): ratio ${pair.ratio.toFixed(2)}×`);
      results[appenders].push(pair);
    }
  }
} finally {
  server.stop();
}

/** The figures of one appender count. */
const summaryOf = (appenders) => {
  const pairs = results[appenders];
  const of = (side) => pairs.map((p) => p[side].rate);
  const p50 = (side) => median(pairs.map((p) => percentile(p[side].latencies, 50)));
  const ratios = pairs.map((p) => p.ratio);
  const loads = pairs.flatMap((p) => p.load);
  return {
    appenders,
    signfold: {
      median: median(of('signfold')),
      min: Math.min(...of('signfold')),
      max: Math.max(...of('signfold')),
      p50: p50('signfold'),
    },
    emmett: {
      median: median(of('emmett')),
      min: Math.min(...of('emmett')),
      max: Math.max(...of('emmett')),
      p50: p50('emmett'),
    },
    ratio: {
      median: median(ratios),
      min: Math.min(...ratios),
      max: Math.max(...ratios),
      all: ratios,
    },
    /** The appends alone (no worker): their rate, and its ratio to Emmett's in the same round. */
    ceiling: {
      median: median(of('ceiling')),
      ratio: median(pairs.map((p) => p.ceilingRatio)),
      min: Math.min(...pairs.map((p) => p.ceilingRatio)),
      max: Math.max(...pairs.map((p) => p.ceilingRatio)),
    },
    tail: median(pairs.map((p) => p.signfold.tailMs)),
    /** Median CPU µs per event of each side: server, appending process, pg work. */
    cpu: Object.fromEntries(
      ['signfold', 'emmett'].map((side) => [
        side,
        ['server', 'client', 'worker'].map((part) =>
          median(pairs.map((p) => (p[side].used[part] * 1000) / EVENTS)),
        ),
      ]),
    ),
    load: { min: Math.min(...loads), max: Math.max(...loads) },
    target: appenders === 1 ? 4 : 5,
  };
};

const summaries = APPENDERS.map(summaryOf);
for (const s of summaries) {
  console.log(
    `${s.appenders} appender(s): signfold ${fmt(s.signfold.median)} events/s (${fmt(s.signfold.min)}–${fmt(s.signfold.max)}), ` +
      `Emmett ${fmt(s.emmett.median)} (${fmt(s.emmett.min)}–${fmt(s.emmett.max)}), ratio median ${s.ratio.median.toFixed(2)}× ` +
      `(${s.ratio.min.toFixed(2)}–${s.ratio.max.toFixed(2)}; target ≥ ${s.target}×); appends alone ${fmt(s.ceiling.median)} events/s, ` +
      `${s.ceiling.ratio.toFixed(2)}× Emmett (${s.ceiling.min.toFixed(2)}–${s.ceiling.max.toFixed(2)}); load ${s.load.min.toFixed(1)}–${s.load.max.toFixed(1)}`,
  );
}

if (!opts['no-write']) {
  const marker = '<!-- bench/emmett-live.js -->';
  const row = (s) =>
    `| ${s.appenders} | ${fmt(s.signfold.median)} (${fmt(s.signfold.min)}–${fmt(s.signfold.max)}) | ` +
    `${fmt(s.emmett.median)} (${fmt(s.emmett.min)}–${fmt(s.emmett.max)}) | ` +
    `**${s.ratio.median.toFixed(2)}×** (${s.ratio.min.toFixed(2)}–${s.ratio.max.toFixed(2)}) | ` +
    `≥ ${s.target}× | ${s.ratio.median >= s.target ? 'yes' : 'no'} | ` +
    `${fmt(s.ceiling.median)}: ${s.ceiling.ratio.toFixed(2)}× (${s.ceiling.min.toFixed(2)}–${s.ceiling.max.toFixed(2)}) | ${s.signfold.p50.toFixed(1)} / ${s.emmett.p50.toFixed(1)} ms | ` +
    `${fmt(s.tail)} ms | ${s.cpu.signfold.map(fmt).join(' + ')} µs | ${s.cpu.emmett.slice(0, 2).map(fmt).join(' + ')} µs | ` +
    `${s.load.min.toFixed(1)}–${s.load.max.toFixed(1)} |`;
  const section = `${marker}
## PostgreSQL live end to end vs Emmett (bench/emmett-live.js)

Generated by \`node bench/emmett-live.js\` (\`npm run bench:emmett\`, part of \`npm run bench\`): one
throwaway PostgreSQL server (default settings: fsync and synchronous_commit on), ${fmt(EVENTS)} generated
events appended one call per event, each run in a fresh database. signfold: \`openPostgresEventLog().append\`
with one \`signfold pg work\` process following (${PARTITIONS} partitions); end to end is from the first
append until every partition's checkpoint reaches the last appended position. Emmett 0.42
(\`@event-driven-io/emmett-postgresql\`): \`appendToStream\` with three inline projections (templates,
sign requests, participants: one SQL statement per event and projection), which commit with the
append. Appenders split the events by stream (each stream's order kept). ${ROUNDS} rounds, the two sides
alternating which runs first; figures are medians with the range, the ratio is taken per pair.
The ceiling: in each round, after the pair, the same appends into a fresh database with no worker
running (events/s of the appends alone, and their ratio to that round's Emmett). No worker, however
cheap, can take the end-to-end rate above it: a ratio target above the ceiling's ratio cannot be met
without a faster append.

- date: ${new Date().toISOString().slice(0, 10)}
- machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB; 1-minute load average before and after each run within the ranges below
- Node ${process.version}

| appenders | signfold events/s | Emmett events/s | ratio (per pair) | target | met | ceiling: appends alone, events/s and ratio to Emmett | append p50 signfold / Emmett | last append → projected | CPU per event, signfold: server + appending + pg work | Emmett: server + appending | load |
|---:|---:|---:|---:|---:|:---:|---:|---:|---:|---:|---:|---:|
${summaries.map(row).join('\n')}

Per-pair ratios: ${summaries.map((s) => `${s.appenders} appender(s) ${s.ratio.all.map((r) => r.toFixed(2)).join(', ')}`).join('; ')}.
`;
  replaceResultsSection(marker, section);
  console.log('wrote bench/RESULTS.md');
}
