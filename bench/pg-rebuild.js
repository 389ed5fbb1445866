// `signfold pg rebuild` next to `signfold pg work --drain` (node bench/pg-rebuild.js, after npm run
// build): one generated store (--events, default 1M) imported once into a throwaway server with
// default durability, then, alternating, a rebuild from scratch (the rebuild schema dropped first;
// one process, without --switch) and a worker draining the live projection from scratch (its tables
// emptied and its partitions reset first, as docs/postgres.md's recipe does for one partition).
// Both fold the same events with one process; the rebuild reads them through its views of the live
// events. Medians of --rounds pairs, with the range; then one `pg rebuild --switch` of the last
// rebuild (resumed, so only the switch itself is timed) and the appends' wait it reports. Writes
// its section of bench/RESULTS.md.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startPostgres } from '../scripts/throwaway-postgres.js';
import { firstEvents, writeNdjson } from './generate-stream.js';
import { replaceResultsSection } from './results-section.js';

const { values: opts } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '5' },
  },
});
const EVENTS = Number(opts.events);
const ROUNDS = Number(opts.rounds);
const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli/main.js');
const MARKER = '<!-- bench/pg-rebuild.js -->';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
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
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return [performance.now() - start, stdout];
};

/** Empties the live projection so that `pg work --drain` starts from nothing, as a rebuild does. */
const resetLive = async (pool) => {
  await pool.query(`
    TRUNCATE signfold.templates, signfold.sign_requests, signfold.participants, signfold.quarantine,
             signfold.partition_templates, signfold.workers;
    UPDATE signfold.partitions SET owner = NULL, lease_until = NULL, epoch = epoch + 1, position = 0,
           applied = 0, no_ops = 0, conflicts = 0, invalid = 0, already_applied = 0,
           last_error = NULL, last_error_at = NULL;`);
  await pool.query(
    'VACUUM ANALYZE signfold.templates, signfold.sign_requests, signfold.participants',
  );
};

const main = async () => {
  const server = await startPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'signfold-bench-rebuild-'));
  try {
    const logPath = join(dir, 'events.ndjson');
    const { lines } = writeNdjson(logPath, firstEvents(EVENTS, 8), { envelope: true });
    const url = await server.createDatabase('bench_rebuild');
    timed(['pg', 'migrate', '--database', url]);
    timed(['pg', 'import', logPath, '--database', url]);
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    await pool.query('VACUUM ANALYZE');
    const loadBefore = load();
    console.log(`store: ${fmt(lines)} events; load average ${loadBefore}`);
    const rebuilds = [];
    const works = [];
    let expected;
    for (let round = 0; round < ROUNDS; round += 1) {
      // Alternate which goes first, so that a drift of the machine's load is shared.
      const order = round % 2 === 0 ? ['rebuild', 'work'] : ['work', 'rebuild'];
      for (const which of order) {
        if (which === 'rebuild') {
          await pool.query('DROP SCHEMA IF EXISTS signfold_rebuild CASCADE');
          const [ms, out] = timed(['pg', 'rebuild', '--database', url]);
          const summary = out
            .replace(/^built signfold_rebuild: /, '')
            .replace(/; switch .*\n$/, '');
          expected ??= summary;
          if (summary !== expected) throw new Error(`rebuild differs: ${summary} vs ${expected}`);
          rebuilds.push(ms);
          console.log(`round ${round + 1}: pg rebuild ${fmt(ms)} ms (${summary})`);
        } else {
          await resetLive(pool);
          const [ms, out] = timed(['pg', 'work', '--drain', '--database', url]);
          const summary = out.trim();
          expected ??= summary;
          if (summary !== expected) throw new Error(`work differs: ${summary} vs ${expected}`);
          works.push(ms);
          console.log(`round ${round + 1}: pg work --drain ${fmt(ms)} ms`);
        }
      }
    }
    const [switchMs, switched] = timed(['pg', 'rebuild', '--database', url, '--switch']);
    const waited = /appends waited (\d+\.\d) s/.exec(switched)?.[1] ?? '?';
    const loadAfter = load();
    await pool.end();
    const ratios = rebuilds.map((ms, i) => ms / works[i]);
    const row = (what, xs) =>
      `| ${what} | ${seconds(median(xs))} | ${seconds(Math.min(...xs))} – ${seconds(Math.max(...xs))} | ${fmt((lines * 1000) / median(xs))} |`;
    const section = `${MARKER}
## \`pg rebuild\` next to \`pg work --drain\` (bench/pg-rebuild.js)

\`node bench/pg-rebuild.js\` (after \`npm run build\`): a generated store of ${fmt(lines)} events, 16
partitions, imported once into a throwaway PostgreSQL with default durability and \`VACUUM ANALYZE\`d;
then ${ROUNDS} pairs of runs, the order alternating: \`signfold pg rebuild\` from scratch (one process,
no \`--switch\`; its schema dropped before each run) and \`signfold pg work --drain\` from empty live
tables (one process). Both checked to print the same counters. Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores
shared with other work, **load average ${loadBefore} before and ${loadAfter} after** (1, 5, 15 min).

| what | median | range | events/s (median) |
|---|---:|---:|---:|
${row('`pg rebuild` (build)', rebuilds)}
${row('`pg work --drain`', works)}

Per pair, \`pg rebuild\` / \`pg work --drain\`: median ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)} – ${Math.max(...ratios).toFixed(2)}).

Then \`pg rebuild --switch\` of the last rebuild (resumed: only the switch) took ${seconds(switchMs)} as a
whole process, and appends waited ${waited} s in its transaction (nothing was appending).
`;
    replaceResultsSection(MARKER, section);
    console.log(section);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

await main();
