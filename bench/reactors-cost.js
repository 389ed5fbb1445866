// The cost of reactors in the pure core (npm run bench): a plain replay of a generated log against
// the same replay with what a store does per applied event for 2 reactors whose react returns []
// (onApplied + planReaction + TimerBook.applyPlan), in one process, from one in-memory log, so the
// figure is the core's share of bench/reactors.js's catch-up cost (no file reading, no journal).
// Target: within 10 % of the plain replay. Rounds alternate; medians. Writes its section of
// bench/RESULTS.md unless --no-write.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateEvents } from './generate-stream.js';
import { replaceResultsSection } from './results-section.js';

const { values: opts } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '7' },
    'no-write': { type: 'boolean', default: false },
  },
});
const ROOT = join(import.meta.dirname, '..');
const { createProjector, defineReactor } = await import(join(ROOT, 'dist/index.js'));
const { planReaction } = await import(join(ROOT, 'dist/reactors/plan-reaction.js'));
const { TimerBook } = await import(join(ROOT, 'dist/reactors/timer-book.js'));
const ROUNDS = Number(opts.rounds);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');

// One receivedAt per event, one second apart, canonical ISO (the webhook server's form).
const START = Date.parse('2026-01-01T00:00:00.000Z');
const records = [
  ...generateEvents({ seed: 11, signRequests: Number(opts.requests) }),
].map((event, i) => ({
  kind: 'entry',
  position: i + 1,
  line: i + 1,
  receivedAt: new Date(START + i * 1000).toISOString(),
  deliveryId: undefined,
  event,
  raw: '',
}));
const BATCH = 1000;
const log = {
  read: async function* () {
    for (let i = 0; i < records.length; i += BATCH) yield records.slice(i, i + BATCH);
  },
};
const load = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');

const silent = [1, 2].map((i) =>
  defineReactor({ name: `silent-${i}`, react: () => [], execute: async () => {} }),
);

const replay = async (withReactors) => {
  const book = new TimerBook();
  const onApplied = withReactors
    ? (change) => {
        for (const reactor of silent) book.applyPlan(planReaction(reactor, change));
      }
    : undefined;
  const projector = createProjector({ audit: false, onApplied });
  const started = performance.now();
  (await projector.replay(log))._unsafeUnwrap();
  return { ms: performance.now() - started, applied: projector.stats().applied };
};

const plain = [];
const reacting = [];
await replay(false); // warm-up
await replay(true);
for (let round = 0; round < ROUNDS; round += 1) {
  plain.push(await replay(false));
  reacting.push(await replay(true));
}
const applied = plain[0].applied;
const plainRate = applied / (median(plain.map((r) => r.ms)) / 1000);
const reactingRate = applied / (median(reacting.map((r) => r.ms)) / 1000);
const ratio = reactingRate / plainRate;
const section = `<!-- bench/reactors-cost.js -->
## The core's cost of reactors (bench/reactors-cost.js)

${fmt(records.length)} generated events in memory (seed 11, ${fmt(Number(opts.requests))} sign requests, a receivedAt per event), ${fmt(applied)} applied; ${ROUNDS} alternating rounds, medians; load average at start ${load} (2 cores, shared). No file and no journal: this is the pure core's share of the catch-up cost in bench/reactors.js.

| measure | median | target | met |
|---|---:|---:|:---:|
| plain replay (createProjector().replay) | ${fmt(plainRate)} events/s |  |  |
| the same with onApplied + planReaction + TimerBook.applyPlan for 2 reactors whose react returns [] | ${fmt(reactingRate)} events/s | ≥ 0.90 × plain | ${ratio >= 0.9 ? 'yes' : 'no'} (${ratio.toFixed(2)}) |
`;
console.log(section);
if (!opts['no-write']) replaceResultsSection('<!-- bench/reactors-cost.js -->', section);
