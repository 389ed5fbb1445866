// `signfold forget --database` of one person on a big store (node bench/forget-postgres.js, after
// npm run build): one generated store (--events, default 1M) imported into a throwaway server with
// default durability and projected by `pg work --drain`; then --rounds forgets, each of another
// participant (one that the store names in several events), as whole CLI processes, while one
// appender stores an event through signfold's append path every 10 ms: the forget's time, what it
// changed, and the longest an append waited during it (the forget holds the append lock to its
// commit). Then one `forget --vacuum` (VACUUM FULL of every table that can hold a name) and a dry
// run. The file engine's side is the lead's bench/forget.js. Writes its section of bench/RESULTS.md.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openPostgresEventLog } from '../dist/postgres/index.js';
import { startPostgres } from '../scripts/throwaway-postgres.js';
import { firstEvents, writeNdjson } from './generate-stream.js';
import { replaceResultsSection } from './results-section.js';

const { values: opts } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '3' },
  },
});
const EVENTS = Number(opts.events);
const ROUNDS = Number(opts.rounds);
const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli/main.js');
const MARKER = '<!-- bench/forget-postgres.js -->';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** Runs the CLI; returns [ms, stdout]. */
const timed = (args) => {
  const start = performance.now();
  const stdout = execFileSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return [performance.now() - start, stdout];
};

/** Runs the CLI in the background; resolves to [ms, stdout] when it exits 0. */
const timedAsync = (args) =>
  new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve([performance.now() - start, stdout])
        : reject(new Error(`signfold ${args.join(' ')} exited ${code}`)),
    );
  });

/** Appends one event every 10 ms until stopped; the longest an append took, in ms. */
const appender = (log) => {
  let stopped = false;
  let longest = 0;
  let n = 0;
  const done = (async () => {
    while (!stopped) {
      n += 1;
      const start = performance.now();
      const stored = await log.append(
        { type: 'template-deleted', companyId: 1, templateId: 9_000_000 + n },
        { deliveryId: `bench-forget-${process.pid}-${n}-${Date.now()}` },
      );
      if (stored.isErr()) throw new Error(stored.error.message);
      longest = Math.max(longest, performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await done;
      return longest;
    },
  };
};

const main = async () => {
  const server = await startPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'signfold-bench-forget-'));
  try {
    const logPath = join(dir, 'events.ndjson');
    const { lines } = writeNdjson(logPath, firstEvents(EVENTS, 33), { envelope: true });
    const url = await server.createDatabase('bench_forget');
    timed(['pg', 'migrate', '--database', url]);
    timed(['pg', 'import', logPath, '--database', url]);
    const [drainMs] = timed(['pg', 'work', '--drain', '--database', url]);
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    await pool.query('VACUUM ANALYZE');
    // Participants the store names in several events, spread over the store.
    const { rows: people } = await pool.query(
      `SELECT id FROM signfold.participants GROUP BY id HAVING count(*) >= 1
        ORDER BY hashint8(id) LIMIT $1`,
      [ROUNDS + 1],
    );
    const loadBefore = load();
    console.log(`store: ${fmt(lines)} events, drained in ${seconds(drainMs)}; load ${loadBefore}`);
    const log = (await openPostgresEventLog(pool))._unsafeUnwrap();
    const rounds = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const id = String(people[round].id);
      const appending = appender(log);
      const [ms, out] = await timedAsync([
        'forget',
        '--database',
        url,
        '--participant',
        id,
        '--json',
      ]);
      const waited = await appending.stop();
      const report = JSON.parse(out);
      rounds.push({ ms, waited, counts: report.counts });
      console.log(
        `round ${round + 1}: forget ${seconds(ms)}, appends waited up to ${seconds(waited)}, ${JSON.stringify(report.counts)}`,
      );
    }
    const last = String(people[ROUNDS].id);
    const [dryMs] = timed([
      'forget',
      '--database',
      url,
      '--participant',
      last,
      '--dry-run',
      '--json',
    ]);
    const [vacuumMs] = timed([
      'forget',
      '--database',
      url,
      '--participant',
      last,
      '--vacuum',
      '--json',
    ]);
    await log.close();
    const loadAfter = load();
    await pool.end();
    const times = rounds.map((r) => r.ms);
    const waits = rounds.map((r) => r.waited);
    const changed = rounds.map((r) => Object.values(r.counts).reduce((a, b) => a + b, 0));
    const section = `${MARKER}
## \`forget --database\` of one person (bench/forget-postgres.js)

\`node bench/forget-postgres.js\` (after \`npm run build\`): a generated store of ${fmt(lines)} events, 16
partitions, imported into a throwaway PostgreSQL with default durability, projected by \`pg work
--drain\` (${seconds(drainMs)}) and \`VACUUM ANALYZE\`d. Then ${ROUNDS} \`signfold forget --participant ID\`,
each of another participant, as whole processes, while one appender stores an event through
signfold's append path every 10 ms. Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores shared with other work,
**load average ${loadBefore} before and ${loadAfter} after** (1, 5, 15 min).

| what | median | range |
|---|---:|---:|
| \`forget\` (whole process, one transaction) | ${seconds(median(times))} | ${seconds(Math.min(...times))} – ${seconds(Math.max(...times))} |
| longest append wait during it | ${seconds(median(waits))} | ${seconds(Math.min(...waits))} – ${seconds(Math.max(...waits))} |
| rows rewritten (all tables) | ${fmt(median(changed))} | ${fmt(Math.min(...changed))} – ${fmt(Math.max(...changed))} |

A dry run of one more participant took ${seconds(dryMs)}; its real forget with \`--vacuum\` (\`VACUUM
(FULL, ANALYZE)\` of every table that can hold a name, the ${fmt(lines)}-row events table included;
appends and readers wait for it) took ${seconds(vacuumMs)}.
`;
    replaceResultsSection(MARKER, section);
    console.log(section);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

await main();
