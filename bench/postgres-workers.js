// Partitioned workers (node bench/postgres-workers.js, after npm run build): rebuild the
// projections of a generated 1M-event store with 1, 2 and 4 `signfold pg work --drain`
// processes at once, against a throwaway server with default durability. Reports events/s and
// CPU time per event of the workers (their rusage, as reaped children) and of PostgreSQL (the
// postmaster and all its processes, from /proc: live ones' utime+stime, exited ones via the
// postmaster's cutime+cstime), and the WAL written per event. Medians of --rounds runs; the load average before and after.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startPostgres } from '../scripts/throwaway-postgres.js';
import { generateEvents, writeNdjson } from './generate-stream.js';

const { values: opts } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '3' },
    workers: { type: 'string', default: '1,2,4' },
    partitions: { type: 'string', default: '16' },
  },
});
const EVENTS = Number(opts.events);
const ROUNDS = Number(opts.rounds);
const WORKERS = opts.workers.split(',').map(Number);
const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli/main.js');
const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** utime, stime, cutime, cstime of a process, in ms (0 if it is gone). */
const cpuOf = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields after the name start at field 3 (state): utime is field 14.
    const at = (n) => Number(fields[n - 3]) * TICK_MS;
    return { ppid: Number(fields[1]), own: at(14) + at(15), children: at(16) + at(17) };
  } catch {
    return { ppid: -1, own: 0, children: 0 };
  }
};

/** CPU ms of the postmaster and every process of the server, exited ones included. */
const serverCpu = (postmaster) => {
  const main = cpuOf(postmaster);
  let total = main.own + main.children;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cpu = cpuOf(Number(entry));
    if (cpu.ppid === postmaster) total += cpu.own;
  }
  return total;
};

/** CPU ms of this process's reaped children (the worker processes). */
const childrenCpu = () => cpuOf(process.pid).children;

const dir = mkdtempSync(join(tmpdir(), 'signfold-bench-workers-'));
const server = await startPostgres();
try {
  const logPath = join(dir, 'events.ndjson');
  const events = function* () {
    let n = 0;
    for (const e of generateEvents({ seed: 8, signRequests: Math.ceil(EVENTS / 6) + 10 })) {
      if (n++ >= EVENTS) return;
      yield e;
    }
  };
  const { lines } = writeNdjson(logPath, events(), { envelope: true });
  const url = await server.createDatabase('bench_workers');
  execFileSync(process.execPath, [
    CLI,
    'pg',
    'migrate',
    '--database',
    url,
    '--partitions',
    opts.partitions,
  ]);
  execFileSync(process.execPath, [CLI, 'pg', 'import', logPath, '--database', url]);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const backend = await pool.query('SELECT pg_backend_pid() AS pid');
  const postmaster = cpuOf(backend.rows[0].pid).ppid;
  const replayed = JSON.parse(
    execFileSync(process.execPath, [CLI, 'replay', logPath, '--json'], { maxBuffer: 1 << 28 }),
  ).stats;
  console.log(
    `${fmt(lines)} events, ${opts.partitions} partitions; load average before: ${load()}`,
  );
  const reset = async () => {
    await pool.query(`TRUNCATE signfold.templates, signfold.sign_requests, signfold.participants,
      signfold.quarantine, signfold.partition_templates`);
    await pool.query(`UPDATE signfold.partitions SET position = 0, applied = 0, no_ops = 0,
      conflicts = 0, invalid = 0, already_applied = 0, owner = NULL, lease_until = NULL`);
    await pool.query('DELETE FROM signfold.workers');
    await pool.query('VACUUM ANALYZE');
    await pool.query('CHECKPOINT');
  };
  const results = new Map(WORKERS.map((w) => [w, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const workers of WORKERS) {
      await reset();
      const walBefore = (await pool.query('SELECT pg_current_wal_lsn() AS lsn')).rows[0].lsn;
      const cpuBefore = childrenCpu();
      const pgBefore = serverCpu(postmaster);
      const start = performance.now();
      const children = Array.from({ length: workers }, () =>
        spawn(process.execPath, [CLI, 'pg', 'work', '--drain', '--database', url], {
          stdio: ['ignore', 'ignore', 'inherit'],
        }),
      );
      const codes = await Promise.all(
        children.map((child) => new Promise((resolve) => child.once('exit', resolve))),
      );
      const ms = performance.now() - start;
      const workerCpu = childrenCpu() - cpuBefore;
      const pgCpu = serverCpu(postmaster) - pgBefore;
      const wal = Number(
        (await pool.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS bytes', [walBefore]))
          .rows[0].bytes,
      );
      if (codes.some((code) => code !== 0)) throw new Error(`a worker exited ${codes}`);
      const sums = await pool.query('SELECT applied, position FROM signfold.checkpoints');
      if (
        Number(sums.rows[0].applied) !== replayed.applied ||
        Number(sums.rows[0].position) !== lines
      )
        throw new Error(`workers and replay differ: ${JSON.stringify(sums.rows[0])}`);
      results.get(workers).push({ ms, workerCpu, pgCpu, wal });
      console.log(
        `round ${round + 1}, ${workers} worker(s): ${fmt(ms)} ms, ${fmt((lines * 1000) / ms)} events/s, ` +
          `workers ${((workerCpu * 1000) / lines).toFixed(1)} µs CPU/event, ` +
          `PostgreSQL ${((pgCpu * 1000) / lines).toFixed(1)} µs CPU/event, ${fmt(wal / lines)} WAL bytes/event`,
      );
    }
  }
  console.log(`load average after: ${load()}`);
  for (const [workers, runs] of results) {
    const ms = median(runs.map((r) => r.ms));
    console.log(
      `${workers} worker(s): median ${fmt(ms)} ms, ${fmt((lines * 1000) / ms)} events/s; ` +
        `workers ${((median(runs.map((r) => r.workerCpu)) * 1000) / lines).toFixed(1)} µs CPU/event, ` +
        `PostgreSQL ${((median(runs.map((r) => r.pgCpu)) * 1000) / lines).toFixed(1)} µs CPU/event`,
    );
  }
  await pool.end();
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
