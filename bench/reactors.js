// Reactors on the file engine (npm run bench): effects/s with a no-op execute (target ≥ 20,000),
// and the cost of reactors whose react returns [] on catching up a log, against a plain replay of
// the same log (target: within 10 %). Pairs of runs alternate; medians. Writes its section of
// bench/RESULTS.md unless --no-write.
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateEvents, writeNdjson } from './generate-stream.js';
import { replaceResultsSection } from './results-section.js';

const { values: opts } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    /** Rounds of the cost measure alone (plain replay against reactors), the order alternating. */
    'cost-rounds': { type: 'string', default: '11' },
    'no-write': { type: 'boolean', default: false },
  },
});
const ROOT = join(import.meta.dirname, '..');
const { createFileReactorRunner, createProjector, defineReactor, readFileEventLog } = await import(
  join(ROOT, 'dist/index.js')
);
const ROUNDS = Number(opts.rounds);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');

const dir = join(tmpdir(), `signfold-bench-reactors-${process.pid}`);
mkdirSync(dir, { recursive: true });
const log = join(dir, 'events.ndjson');
const events = [...generateEvents({ seed: 11, signRequests: Number(opts.requests) })];
writeNdjson(log, events, { envelope: true, seed: 3 });
const load = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');

const clearJournal = () => {
  rmSync(`${log}.reactors`, { force: true });
  rmSync(`${log}.reactors.tmp`, { force: true });
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

const plain = [];
const silentRuns = [];
const effects = [];
await plainReplay(); // warm-up
await withSilentReactors();
// The cost is a ratio of two runs of about a second on a shared machine whose speed drifts by
// more than the 10 % measured: many short pairs, the order alternating, and the median of both
// the runs and the per-pair ratios.
for (let round = 0; round < Number(opts['cost-rounds']); round += 1) {
  if (round % 2 === 0) {
    plain.push(await plainReplay());
    silentRuns.push(await withSilentReactors());
  } else {
    silentRuns.push(await withSilentReactors());
    plain.push(await plainReplay());
  }
}
for (let round = 0; round < ROUNDS; round += 1) effects.push(await effectsRun());
rmSync(dir, { recursive: true, force: true });

const applied = plain[0].applied;
const plainRate = applied / (median(plain.map((r) => r.ms)) / 1000);
const silentRate = applied / (median(silentRuns.map((r) => r.ms)) / 1000);
const effectCount = effects[0].effects;
const effectRate = effectCount / (median(effects.map((r) => r.ms)) / 1000);
const ratio = silentRate / plainRate;
const pairedRatio = median(plain.map((run, i) => run.ms / silentRuns[i].ms));
const section = `<!-- bench/reactors.js -->
## Reactors on the file engine (bench/reactors.js)

${fmt(events.length)} generated events (seed 11, ${fmt(Number(opts.requests))} sign requests, envelope NDJSON), ${fmt(applied)} applied; load average at start ${load} (2 cores, shared). The cost: ${opts['cost-rounds']} pairs of runs, the order alternating, medians (and the median of the per-pair ratios, ${pairedRatio.toFixed(2)}); the effects: ${ROUNDS} runs, median. Each reactor run starts with no journal, so it reacts to the whole log.

| measure | median | target | met |
|---|---:|---:|:---:|
| plain replay (createProjector().replay) | ${fmt(plainRate)} events/s |  |  |
| catching up with 2 reactors whose react returns [] (createFileReactorRunner, drain) | ${fmt(silentRate)} events/s | ≥ 0.90 × plain | ${ratio >= 0.9 ? 'yes' : 'no'} (${ratio.toFixed(2)}) |
| one effect per applied event, no-op execute, whole run (replay + plan + execute + journal) | ${fmt(effectRate)} effects/s (${fmt(effectCount)} effects) | ≥ 20,000 | ${effectRate >= 20_000 ? 'yes' : 'no'} |
`;
console.log(section);
if (!opts['no-write']) replaceResultsSection('<!-- bench/reactors.js -->', section);
