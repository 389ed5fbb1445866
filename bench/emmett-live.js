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
// The targets (issue 47, restated): with 1 appender, signfold's end-to-end rate ≥ 0.80 × the ceiling
// of the same round; with 8 appenders, the CPU per event of `pg work` and of its server connections
// (the backends whose application_name is WORKER_APP) ≤ 1/5 of Emmett's (its server's and its
// appending process's, which runs its inline projections). Each is taken per round, and the median
// over the rounds is what meets it or not. The section names the processor (os.cpus()), Node's
// version and the load; its tables hold one row per processor, and a rewrite keeps the rows of the
// other processors (measured elsewhere) as they were.
//
// Writes its section of bench/RESULTS.md unless --no-write. Options: --events N (default 20,000),
// --rounds N (default 5), --appenders 1,8, --profile DIR (a CPU profile of each pg work process
// there), --no-write.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { projections } from '@event-driven-io/emmett';
import { getPostgreSQLEventStore } from '@event-driven-io/emmett-postgresql';
import pg from 'pg';
import { startPostgres } from '../scripts/throwaway-postgres.js';
import { emmettProjections, emmettProjectionTablesSql } from './emmett-projections.js';
import { generateEvents } from './generate-stream.js';
import { RESULTS_FILE, replaceResultsSection } from './results-section.js';

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
/** The processor a figure was measured on, as every row names it. */
const PROCESSOR = `${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores`;
/**
 * The application_name of `pg work`'s connections, set through its environment: its server
 * backends are found by it in pg_stat_activity (whatever name the build would give them).
 */
const WORKER_APP = 'signfold pg work';
/** The 1-appender target: end to end ÷ the ceiling of the same round, at least. */
const CEILING_TARGET = 0.8;
/** The 8-appender target: CPU per event of the worker and its connections ÷ Emmett's, at most. */
const CPU_TARGET = 0.2;

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
/** The pids of the server backends of `pg work` (its pool's connections, the listening one too). */
const workerBackends = async (client) => {
  const { rows } = await client.query(
    'SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
    [WORKER_APP],
  );
  return rows.map((row) => row.pid);
};
/** CPU ticks of each live pid of `pids`. */
const ticksOf = (pids) => {
  const ticks = new Map();
  for (const pid of pids) {
    try {
      ticks.set(pid, statOf(pid).own);
    } catch {
      // exited
    }
  }
  return ticks;
};
/**
 * CPU ms the worker's backends spent between `before` (ticks at the start) and now, over the
 * backends alive now (one opened meanwhile counts from 0), and how many of those at the start
 * exited meanwhile (their CPU is lost: reported, so that a run missing some is seen).
 */
const backendsCpuMs = (before, pids) => {
  const now = ticksOf(pids);
  let ticks = 0;
  for (const [pid, t] of now) ticks += t - (before.get(pid) ?? 0);
  const gone = [...before.keys()].filter((pid) => !now.has(pid)).length;
  return { ms: ticks * TICK_MS, gone };
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
        env: { ...process.env, PGAPPNAME: WORKER_APP },
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
    const backendsAtStart = ticksOf(follow ? await workerBackends(watcher) : []);
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
    const backends = backendsCpuMs(backendsAtStart, follow ? await workerBackends(watcher) : []);
    const used = {
      server: serverCpuMs(POSTMASTER) - cpu.server,
      client: ownCpuMs() - cpu.client,
      worker: worker === undefined ? 0 : workerCpuMs(worker) - cpu.worker,
      backends: backends.ms,
    };
    if (backends.gone > 0) {
      console.log(
        `(${backends.gone} backend(s) of pg work exited during the run: their CPU is not counted)`,
      );
    }
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
      backends: 0,
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

/** CPU µs per event of `pg work` and its server backends in a signfold run. */
const workerCpuOf = (run) => ((run.used.worker + run.used.backends) * 1000) / EVENTS;
/** CPU µs per event of an Emmett run: its server and the appending process (inline projections). */
const emmettCpuOf = (run) => ((run.used.server + run.used.client) * 1000) / EVENTS;

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
    void server.stop();
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
    void server.stop();
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
            `${run.rows}; CPU µs per event: server ${perEvent(run.used.server)} (of which pg work's connections ${perEvent(run.used.backends)}), appending process ${perEvent(run.used.client)}, pg work ${perEvent(run.used.worker)}; load ${load().toFixed(2)})`,
        );
        const admin = new pg.Client({ connectionString: server.url });
        await admin.connect();
        await admin.query(`DROP DATABASE ${name}`);
        await admin.end();
      }
      pair.load.push(load());
      pair.ratio = pair.signfold.rate / pair.emmett.rate;
      pair.ceilingRatio = pair.ceiling.rate / pair.emmett.rate;
      // The restated targets, per round: end to end against this round's ceiling, and the worker's
      // CPU (the process and its server connections) against this round's Emmett.
      pair.ofCeiling = pair.signfold.rate / pair.ceiling.rate;
      pair.workerCpu = workerCpuOf(pair.signfold);
      pair.cpuRatio = pair.workerCpu / emmettCpuOf(pair.emmett);
      console.log(
        `round ${round}, ${appenders} appender(s): ratio to Emmett ${pair.ratio.toFixed(2)}×; ` +
          `end to end ÷ ceiling ${pair.ofCeiling.toFixed(2)}; worker CPU ${fmt(pair.workerCpu)} µs/event ` +
          `÷ Emmett's ${pair.cpuRatio.toFixed(3)}`,
      );
      results[appenders].push(pair);
    }
  }
} finally {
  await server.stop();
}

/** Median and range of `xs`. */
const spread = (xs) => ({
  median: median(xs),
  min: Math.min(...xs),
  max: Math.max(...xs),
  all: xs,
});

/** The figures of one appender count. */
const summaryOf = (appenders) => {
  const pairs = results[appenders];
  const of = (side) => pairs.map((p) => p[side].rate);
  const p50 = (side) => median(pairs.map((p) => percentile(p[side].latencies, 50)));
  const loads = pairs.flatMap((p) => p.load);
  return {
    appenders,
    signfold: { ...spread(of('signfold')), p50: p50('signfold') },
    emmett: { ...spread(of('emmett')), p50: p50('emmett') },
    /** signfold ÷ Emmett, per pair. */
    ratio: spread(pairs.map((p) => p.ratio)),
    /** The appends alone (no worker): their rate, and its ratio to Emmett's in the same round. */
    ceiling: { rate: median(of('ceiling')), ...spread(pairs.map((p) => p.ceilingRatio)) },
    /** signfold end to end ÷ the ceiling, per round (the 1-appender target). */
    ofCeiling: spread(pairs.map((p) => p.ofCeiling)),
    /** CPU µs per event of pg work and its connections, and its ratio to Emmett's (the 8-appender target). */
    workerCpu: spread(pairs.map((p) => p.workerCpu)),
    cpuRatio: spread(pairs.map((p) => p.cpuRatio)),
    tail: median(pairs.map((p) => p.signfold.tailMs)),
    /** Median CPU µs per event of each side: server, appending process, pg work, pg work's connections. */
    cpu: Object.fromEntries(
      ['signfold', 'emmett'].map((side) => [
        side,
        ['server', 'client', 'worker', 'backends'].map((part) =>
          median(pairs.map((p) => (p[side].used[part] * 1000) / EVENTS)),
        ),
      ]),
    ),
    load: { min: Math.min(...loads), max: Math.max(...loads) },
  };
};

const summaries = APPENDERS.map(summaryOf);
const range = (x, digits) => `${x.min.toFixed(digits)}–${x.max.toFixed(digits)}`;
for (const s of summaries) {
  console.log(
    `${s.appenders} appender(s): signfold ${fmt(s.signfold.median)} events/s (${fmt(s.signfold.min)}–${fmt(s.signfold.max)}), ` +
      `Emmett ${fmt(s.emmett.median)} (${fmt(s.emmett.min)}–${fmt(s.emmett.max)}), ratio median ${s.ratio.median.toFixed(2)}× ` +
      `(${range(s.ratio, 2)}); appends alone ${fmt(s.ceiling.rate)} events/s, ` +
      `${s.ceiling.median.toFixed(2)}× Emmett (${range(s.ceiling, 2)}); end to end ÷ ceiling ${s.ofCeiling.median.toFixed(2)} ` +
      `(${range(s.ofCeiling, 2)}); pg work + its connections ${fmt(s.workerCpu.median)} µs/event, ÷ Emmett's ` +
      `${s.cpuRatio.median.toFixed(3)} (${range(s.cpuRatio, 3)}); load ${s.load.min.toFixed(1)}–${s.load.max.toFixed(1)}`,
  );
}

/**
 * The rows of the section's table under `header` (its first line) whose first cell (the
 * processor) is not `PROCESSOR`: measured on another machine, they stay when this one's is rewritten.
 */
const otherProcessorRows = (marker, header) => {
  if (!existsSync(RESULTS_FILE)) return [];
  const text = readFileSync(RESULTS_FILE, 'utf8');
  const start = text.indexOf(marker);
  if (start === -1) return [];
  const end = text.indexOf('<!-- bench/', start + marker.length);
  const lines = text.slice(start, end === -1 ? undefined : end).split('\n');
  const at = lines.indexOf(header);
  if (at === -1) return [];
  const rows = [];
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    if (line.split('|')[1]?.trim() !== PROCESSOR) rows.push(line);
  }
  return rows;
};

if (!opts['no-write']) {
  const marker = '<!-- bench/emmett-live.js -->';
  const byAppenders = (n) => summaries.find((s) => s.appenders === n);
  const one = byAppenders(1);
  const eight = byAppenders(8);
  const loads = summaries.flatMap((s) => [s.load.min, s.load.max]);
  const loadRange = `${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`;
  const targetsHeader =
    '| processor | Node | load | 1 appender: end to end ÷ ceiling, per round | target | met | 8 appenders: CPU per event of pg work + its server connections | Emmett: server + appending | ratio, per pair | target | met |';
  const ofCeilingCell = (s) =>
    s === undefined
      ? '– | ≥ 0.80 | –'
      : `**${s.ofCeiling.median.toFixed(2)}** (${range(s.ofCeiling, 2)}) | ≥ ${CEILING_TARGET.toFixed(2)} | ${s.ofCeiling.median >= CEILING_TARGET ? 'yes' : 'no'}`;
  const cpuCells = (s) =>
    s === undefined
      ? '– | – | – | ≤ 0.20 | –'
      : `${fmt(s.workerCpu.median)} µs (${fmt(s.cpu.signfold[2])} + ${fmt(s.cpu.signfold[3])}) | ` +
        `${fmt(s.cpu.emmett[0] + s.cpu.emmett[1])} µs (${fmt(s.cpu.emmett[0])} + ${fmt(s.cpu.emmett[1])}) | ` +
        `**${s.cpuRatio.median.toFixed(3)}** (${range(s.cpuRatio, 3)}) | ≤ ${CPU_TARGET.toFixed(2)} | ${s.cpuRatio.median <= CPU_TARGET ? 'yes' : 'no'}`;
  const targetsRow = `| ${PROCESSOR} | ${process.version} | ${loadRange} | ${ofCeilingCell(one)} | ${cpuCells(eight)} |`;
  const detailsHeader =
    "| processor | appenders | signfold events/s | Emmett events/s | ratio (per pair) | ceiling: appends alone, events/s and ratio to Emmett | append p50 signfold / Emmett | last append → projected | CPU per event, signfold: server (of which pg work's connections) + appending + pg work | Emmett: server + appending | load |";
  const detailsRow = (s) =>
    `| ${PROCESSOR} | ${s.appenders} | ${fmt(s.signfold.median)} (${fmt(s.signfold.min)}–${fmt(s.signfold.max)}) | ` +
    `${fmt(s.emmett.median)} (${fmt(s.emmett.min)}–${fmt(s.emmett.max)}) | ` +
    `${s.ratio.median.toFixed(2)}× (${range(s.ratio, 2)}) | ` +
    `${fmt(s.ceiling.rate)}: ${s.ceiling.median.toFixed(2)}× (${range(s.ceiling, 2)}) | ${s.signfold.p50.toFixed(1)} / ${s.emmett.p50.toFixed(1)} ms | ` +
    `${fmt(s.tail)} ms | ${fmt(s.cpu.signfold[0])} (${fmt(s.cpu.signfold[3])}) + ${fmt(s.cpu.signfold[1])} + ${fmt(s.cpu.signfold[2])} µs | ` +
    `${fmt(s.cpu.emmett[0])} + ${fmt(s.cpu.emmett[1])} µs | ${s.load.min.toFixed(1)}–${s.load.max.toFixed(1)} |`;
  const table = (header, rows) =>
    [
      header,
      `|${header
        .split('|')
        .slice(1, -1)
        .map(() => '---')
        .join('|')}|`,
      ...rows,
    ].join('\n');
  const section = `${marker}
## PostgreSQL live end to end vs Emmett (bench/emmett-live.js)

Generated by \`node bench/emmett-live.js\` (\`npm run bench:emmett\`, part of \`npm run bench\`) on
**${PROCESSOR}** (\`os.cpus()\`), **Node ${process.version}**, 1-minute load average **${loadRange}** over
the runs; ${new Date().toISOString().slice(0, 10)}, ${Math.round(totalmem() / 2 ** 30)} GiB. One
throwaway PostgreSQL server (default settings: fsync and synchronous_commit on), ${fmt(EVENTS)} generated
events appended one call per event, each run in a fresh database. signfold: \`openPostgresEventLog().append\`
with one \`signfold pg work\` process following (${PARTITIONS} partitions); end to end is from the first
append until every partition's checkpoint reaches the last appended position. Emmett 0.42
(\`@event-driven-io/emmett-postgresql\`): \`appendToStream\` with three inline projections (templates,
sign requests, participants: one SQL statement per event and projection), which commit with the
append. Appenders split the events by stream (each stream's order kept). ${ROUNDS} rounds, the two sides
alternating which runs first; then, in each round, the ceiling: the same appends into a fresh
database with no worker running (the appends alone, which no worker can exceed).

The targets: with 1 appender, signfold's end-to-end rate ≥ 0.80 × the same round's
ceiling; with 8 appenders, the CPU per event of \`pg work\` and of its server connections (the
backends named \`${WORKER_APP}\` in \`pg_stat_activity\`) ≤ 1/5 of Emmett's (its server and the
appending process, which runs its inline projections), per pair. Medians over the ${ROUNDS} rounds,
the range in brackets; a target is met where the median holds on each processor measured. One row
per processor: a run on another rewrites its own row and keeps the others.

${table(targetsHeader, [...otherProcessorRows(marker, targetsHeader), targetsRow])}

${table(detailsHeader, [...otherProcessorRows(marker, detailsHeader), ...summaries.map(detailsRow)])}

Per-round figures on ${PROCESSOR}: ${summaries.map((s) => `${s.appenders} appender(s): end to end ÷ ceiling ${s.ofCeiling.all.map((r) => r.toFixed(2)).join(', ')}; CPU ratio ${s.cpuRatio.all.map((r) => r.toFixed(3)).join(', ')}; ratio to Emmett ${s.ratio.all.map((r) => r.toFixed(2)).join(', ')}`).join('. ')}.
`;
  replaceResultsSection(marker, section);
  console.log('wrote bench/RESULTS.md');
}
