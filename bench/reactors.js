// Reactors on the file engine (npm run bench): effects/s with a no-op execute (target ≥ 20,000),
// and the cost of reactors whose react returns [] on catching up a log, against a plain replay of
// the same log (target: within 10 %, met by the median). The cost is measured in --processes fresh
// child processes (default 7), each running --pairs alternating pairs (default 5) after a warm-up of
// both: one process's median moves by more than the 10 % measured (JIT decisions, the shared host),
// so the figure recorded is the median over the processes, with their range, never the best one.
// Writes its section of bench/RESULTS.md unless --no-write.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateEvents, writeNdjson } from './generate-stream.js';
import { replaceResultsSection } from './results-section.js';

const { values: opts } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    /** Child processes of the cost measure (plain replay against reactors). */
    processes: { type: 'string', default: '7' },
    /** Alternating pairs per child process. */
    pairs: { type: 'string', default: '5' },
    /** Internal: run the pairs of one child process on this log and print them as JSON. */
    child: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});
const ROOT = join(import.meta.dirname, '..');
const { createProjector } = await import(join(ROOT, 'dist/index.js'));
const { createFileReactorRunner, readFileEventLog } = await import(
  join(ROOT, 'dist/store/index.js')
);
const { defineReactor } = await import(join(ROOT, 'dist/core/reactors/index.js'));
const ROUNDS = Number(opts.rounds);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');

const dir = join(tmpdir(), `signfold-bench-reactors-${process.pid}`);
const log = opts.child ?? join(dir, 'events.ndjson');
const events =
  opts.child === undefined
    ? [...generateEvents({ seed: 11, signRequests: Number(opts.requests) })]
    : [];
if (opts.child === undefined) {
  mkdirSync(dir, { recursive: true });
  writeNdjson(log, events, { envelope: true, seed: 3 });
}
const load = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');

const clearJournal = () => {
  rmSync(`${log}.reactors`, { force: true });
  // A killed run's journal rewrite leaves its temporary file (`LOG.reactors.<pid>.<hex>.tmp`).
  const temporary = `${basename(log)}.reactors.`;
  for (const name of readdirSync(dirname(log))) {
    if (name.startsWith(temporary) && name.endsWith('.tmp')) rmSync(join(dirname(log), name));
  }
};

const plainReplay = async () => {
  const started = performance.now();
  const projector = createProjector({ audit: false });
  (await projector.replay({ read: (o) => readFileEventLog(log, o) }))._unsafeUnwrap();
  return { ms: performance.now() - started, applied: projector.stats().applied };
};

const silent = [1, 2].map((i) =>
  defineReactor({ name: `silent-${i}`, react: () => [], execute: async () => {} }),
);
const withSilentReactors = async () => {
  clearJournal();
  const started = performance.now();
  (
    await createFileReactorRunner({ logPath: log, reactors: silent, drain: true }).run()
  )._unsafeUnwrap();
  return { ms: performance.now() - started };
};

const noOp = defineReactor({
  name: 'every',
  react: ({ position }) => [{ type: 'seen', position }],
  execute: async () => {},
});
const effectsRun = async () => {
  clearJournal();
  const started = performance.now();
  const run = (
    await createFileReactorRunner({ logPath: log, reactors: [noOp], drain: true }).run()
  )._unsafeUnwrap();
  return { ms: performance.now() - started, effects: run.succeeded };
};

/** One child process: a warm-up of both, then alternating pairs; prints their times as JSON. */
const childPairs = async (first) => {
  const plain = [];
  const silentRuns = [];
  await plainReplay();
  await withSilentReactors();
  for (let pair = 0; pair < Number(opts.pairs); pair += 1) {
    if ((pair + first) % 2 === 0) {
      plain.push((await plainReplay()).ms);
      silentRuns.push((await withSilentReactors()).ms);
    } else {
      silentRuns.push((await withSilentReactors()).ms);
      plain.push((await plainReplay()).ms);
    }
  }
  const { applied } = await plainReplay();
  console.log(JSON.stringify({ plain, silent: silentRuns, applied, load: loadavg()[0] }));
};
if (opts.child !== undefined) {
  await childPairs(Number(process.env.SIGNFOLD_BENCH_FIRST ?? 0));
  process.exit(0);
}

const processes = [];
for (let i = 0; i < Number(opts.processes); i += 1) {
  const out = execFileSync(
    process.execPath,
    [import.meta.filename, '--child', log, '--pairs', opts.pairs],
    { encoding: 'utf8', env: { ...process.env, SIGNFOLD_BENCH_FIRST: String(i % 2) } },
  );
  const run = JSON.parse(out.trim().split('\n').at(-1));
  const ratios = run.plain.map((ms, k) => ms / run.silent[k]);
  processes.push({ ...run, ratio: median(ratios), ratios });
  console.log(
    `process ${i + 1}: median ratio ${median(ratios).toFixed(2)} (pairs ${ratios.map((r) => r.toFixed(2)).join(', ')}), load ${run.load.toFixed(1)}`,
  );
}
const effects = [];
for (let round = 0; round < ROUNDS; round += 1) effects.push(await effectsRun());
rmSync(dir, { recursive: true, force: true });

const applied = processes[0].applied;
const plainRate = applied / (median(processes.map((p) => median(p.plain))) / 1000);
const silentRate = applied / (median(processes.map((p) => median(p.silent))) / 1000);
const effectCount = effects[0].effects;
const effectRates = effects.map((r) => effectCount / (r.ms / 1000));
const effectRate = median(effectRates);
const processRatios = processes.map((p) => p.ratio);
const ratio = median(processRatios);
const ratioRange = `${Math.min(...processRatios).toFixed(2)}–${Math.max(...processRatios).toFixed(2)}`;
const allPairs = processes.flatMap((p) => p.ratios);
const loads = processes.map((p) => p.load.toFixed(1)).join(', ');
const section = `<!-- bench/reactors.js -->
## Reactors on the file engine (bench/reactors.js)

${fmt(events.length)} generated events (seed 11, ${fmt(Number(opts.requests))} sign requests, envelope NDJSON), ${fmt(applied)} applied; load average at start ${load} (2 cores, shared), 1-minute load at the end of each process ${loads}. The cost: ${processes.length} fresh processes, each a warm-up of both then ${opts.pairs} pairs of runs, the order alternating (and the first of each process alternating too); the ratio plain ÷ with reactors is the median of each process's per-pair ratios, and the figure is the **median over the processes, with their range** (all ${allPairs.length} pairs pooled: median ${median(allPairs).toFixed(2)}, ${Math.min(...allPairs).toFixed(2)}–${Math.max(...allPairs).toFixed(2)}). The events/s are medians of the processes' medians. The effects: ${ROUNDS} runs, median (range ${fmt(Math.min(...effectRates))}–${fmt(Math.max(...effectRates))}). Each reactor run starts with no journal, so it reacts to the whole log.

| measure | median | target | met |
|---|---:|---:|:---:|
| plain replay (createProjector().replay) | ${fmt(plainRate)} events/s |  |  |
| catching up with 2 reactors whose react returns [] (createFileReactorRunner, drain) | ${fmt(silentRate)} events/s; ${ratio.toFixed(2)} × plain (processes ${ratioRange}) | ≥ 0.90 × plain | ${ratio >= 0.9 ? 'yes' : '**no**'} (${ratio.toFixed(2)}) |
| one effect per applied event, no-op execute, whole run (replay + plan + execute + journal) | ${fmt(effectRate)} effects/s (${fmt(effectCount)} effects) | ≥ 20,000 | ${effectRate >= 20_000 ? 'yes' : '**no**'} |
`;
console.log(section);
if (!opts['no-write']) replaceResultsSection('<!-- bench/reactors.js -->', section);
