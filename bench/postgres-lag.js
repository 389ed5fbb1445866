// Live projection lag (npm run bench:postgres, after bench/postgres.js): one `signfold pg work`
// process follows a throwaway server (default durability, --partitions, default 16) while this process
// appends generated events open loop at --rate appends/s (default 500) for --seconds (default 10)
// after --warmup seconds (default 2, not counted). The lag of an event is the time from its
// append's commit (the promise of `log.append` resolving) to the moment its partition's checkpoint
// is seen at or past its position (every partition's, for a template event), observed by polling
// the partitions every --poll ms (default 5; it adds up to that much). Target: p99 < 100 ms.
// Writes its section of bench/RESULTS.md unless --no-write.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startPostgres } from '../scripts/throwaway-postgres.js';
import { generateEvents } from './generate-stream.js';
import { cpuSecondsOf } from './process-cpu.js';

const { values: opts } = parseArgs({
  options: {
    rate: { type: 'string', default: '500' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    poll: { type: 'string', default: '5' },
    partitions: { type: 'string', default: '16' },
    'no-write': { type: 'boolean', default: false },
  },
});
const RATE = Number(opts.rate);
const SECONDS = Number(opts.seconds);
const WARMUP = Number(opts.warmup);
const POLL_MS = Number(opts.poll);
const PARTITIONS = Number(opts.partitions);
const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli/main.js');
const { migrate, openPostgresEventLog } = await import(join(ROOT, 'dist/postgres/index.js'));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const fmt = (n) => Math.round(n).toLocaleString('en-US');

/** Appends `count` events open loop at RATE/s; `onStored(position, committedAt)` for each. */
const appendOpenLoop = async (log, source, first, count, onStored) => {
  const started = performance.now();
  const pending = [];
  for (let i = 0; i < count; i += 1) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const event = source.next().value;
    pending.push(
      log.append(event, { deliveryId: `lag-${first + i}` }).then((stored) => {
        if (stored.isErr()) throw new Error(stored.error.message);
        onStored(stored.value.position, performance.now());
      }),
    );
  }
  await Promise.all(pending);
};

/**
 * Watches the partitions' checkpoints; resolves each awaited position's lag once it is projected.
 * One small query per poll (the 16 checkpoints, and the partition of each position not seen
 * before), so that measuring costs the shared machine little: re-checking every waiting position
 * against the checkpoints in SQL cost about a millisecond of server time per poll.
 */
const watchCheckpoints = (client) => {
  const waiting = new Map(); // position → { committedAt, resolve, partition }
  let running = true;
  const loop = (async () => {
    while (running) {
      if (waiting.size > 0) {
        const fresh = [...waiting].filter(([, e]) => e.partition === undefined).map(([p]) => p);
        const { rows } = await client.query(
          `SELECT (SELECT json_agg(json_build_array(partition, position)) FROM signfold.partitions) AS checkpoints,
                  (SELECT json_agg(json_build_array(position, partition)) FROM signfold.events
                    WHERE position = ANY($1::bigint[])) AS fresh`,
          [fresh],
        );
        const seenAt = performance.now();
        for (const [position, partition] of rows[0].fresh ?? []) {
          const entry = waiting.get(Number(position));
          if (entry !== undefined) entry.partition = partition;
        }
        const checkpoints = new Map(rows[0].checkpoints.map(([p, at]) => [p, Number(at)]));
        const every = Math.min(...checkpoints.values());
        for (const [position, entry] of waiting) {
          if (entry.partition === undefined) continue;
          const at = entry.partition === -1 ? every : (checkpoints.get(entry.partition) ?? 0);
          if (at < position) continue;
          waiting.delete(position);
          entry.resolve(seenAt - entry.committedAt);
        }
      }
      await sleep(POLL_MS);
    }
  })();
  return {
    lagOf: (position, committedAt) =>
      new Promise((resolve) =>
        waiting.set(position, { committedAt, resolve, partition: undefined }),
      ),
    stop: async () => {
      running = false;
      await loop;
    },
  };
};

/** Appends one phase and returns the lags of its events. */
const phase = async (log, source, watch, first, count) => {
  const lags = [];
  await appendOpenLoop(log, source, first, count, (position, committedAt) => {
    lags.push(watch.lagOf(position, committedAt));
  });
  return Promise.all(lags);
};

const summary = (label, lags) => {
  const figures = {
    count: lags.length,
    p50: percentile(lags, 50),
    p99: percentile(lags, 99),
    max: Math.max(...lags),
  };
  console.log(
    `${label}: ${fmt(figures.count)} appends at ${RATE}/s: append-to-projected lag ` +
      `p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms, max ${figures.max.toFixed(1)} ms`,
  );
  return figures;
};

const writeResults = (warm, main) => {
  const file = join(ROOT, 'bench/RESULTS.md');
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  const marker = '<!-- bench/postgres-lag.js -->';
  const start = previous.indexOf(marker);
  const next = start === -1 ? -1 : previous.indexOf('<!-- bench/', start + marker.length);
  const before = start === -1 ? previous.trimEnd() : previous.slice(0, start).trimEnd();
  const after = next === -1 ? '' : `\n\n${previous.slice(next).trimEnd()}`;
  const row = (label, f, target) =>
    `| ${label} | ${fmt(f.count)} | ${f.p50.toFixed(1)} ms | ${f.p99.toFixed(1)} ms | ${f.max.toFixed(1)} ms | ${target ? `< 100 ms | ${f.p99 < 100 ? 'yes' : 'no'}` : ' | '} |`;
  const section = `${marker}
## PostgreSQL live projection lag (bench/postgres-lag.js)

Generated by \`node bench/postgres-lag.js\` (part of \`npm run bench:postgres\`): one \`signfold pg work\`
process (default lease and poll) follows a throwaway PostgreSQL server (default settings, fsync on,
${PARTITIONS} partitions) while the benchmark appends generated events through \`openPostgresEventLog\`, open loop
at ${RATE} appends/s for ${SECONDS} s after a ${WARMUP} s warm-up at the same rate. Lag: from the
append's commit to its partition's checkpoint (every partition's, for a template event) seen at or
past its position, by polling every ${POLL_MS} ms (which adds up to ${POLL_MS} ms).

- date: ${new Date().toISOString().slice(0, 10)}
- machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB; load average at the end ${loadavg()
    .map((n) => n.toFixed(1))
    .join(' ')}
- Node ${process.version}

| | appends | p50 | p99 | max | target p99 | met |
|---|---:|---:|---:|---:|---:|:---:|
${row('warm-up (not counted)', warm, false)}
${row('measured', main, true)}
`;
  writeFileSync(file, `${before}\n\n${section}${after}\n`);
  console.log('wrote bench/RESULTS.md');
};

const server = await startPostgres();
let worker;
const pool = new pg.Pool({ connectionString: server.url, max: 4 });
const watcher = new pg.Client({ connectionString: server.url });
try {
  (await migrate(pool, { partitions: PARTITIONS }))._unsafeUnwrap();
  // stderr through a pipe, not the terminal: as under a supervisor, no progress line is drawn.
  worker = spawn(process.execPath, [CLI, 'pg', 'work', '--database', server.url], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  worker.stderr.pipe(process.stderr);
  await watcher.connect();
  // Wait until the worker holds every partition.
  for (let tries = 0; ; tries += 1) {
    const { rows } = await watcher.query(
      'SELECT count(*) FILTER (WHERE owner IS NULL) AS free FROM signfold.partitions',
    );
    if (Number(rows[0].free) === 0) break;
    if (tries > 400) throw new Error('pg work did not claim the partitions');
    await sleep(25);
  }
  const log = (await openPostgresEventLog(pool))._unsafeUnwrap();
  const total = Math.ceil(RATE * (WARMUP + SECONDS));
  const source = generateEvents({ seed: 21, signRequests: Math.ceil(total / 5) + 10 });
  const watch = watchCheckpoints(watcher);
  const warm = summary(
    'warm-up (not counted)',
    await phase(log, source, watch, 0, Math.ceil(RATE * WARMUP)),
  );
  const cpuBefore = cpuSecondsOf(worker.pid);
  const main = summary(
    'measured (target p99 < 100 ms)',
    await phase(log, source, watch, Math.ceil(RATE * WARMUP), Math.ceil(RATE * SECONDS)),
  );
  main.workerCpuUs = ((cpuSecondsOf(worker.pid) - cpuBefore) / main.count) * 1e6;
  console.log(`pg work CPU per event while measured: ${fmt(main.workerCpuUs)} µs`);
  await watch.stop();
  await log.close();
  if (!opts['no-write']) writeResults(warm, main);
} finally {
  // Let the worker stop cleanly before the server goes away.
  if (worker !== undefined && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
  }
  await watcher.end().catch(() => undefined);
  await pool.end();
  await server.stop();
}
