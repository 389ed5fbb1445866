// The cost of reactors in the pure core (npm run bench): a plain replay of a generated log against
// the same replay with what the file runner does per applied event for 2 reactors whose react
// returns [] (the change, planReaction, reactInto a ReactorEffects), in one process, from one in-memory
// log: the core's share of bench/reactors.js's catch-up cost (no file reading, no journal). A
// diagnostic: the target (within 10 %) is on the file and PostgreSQL figures, where reading and
// decoding the log are part of the plain work. Rounds alternate; medians. Writes its section of
// bench/RESULTS.md unless --no-write.
//
// Tried on 2026-11-24 and measured slower, so not kept (see /work/notes/report-reactors-views.md):
// handing out the working copy's own records as views instead of copies, marking them by freezing
// (0.30) or by copying each record on its next write (0.35-0.37; every version then outlives the
// young generation, and the GC time doubled). Copies are young garbage that dies at once.
// Kept on 2026-11-26: views made on first read, with pre-images copied only of the records an
// event writes (one copy per record written, where copying every view before and after was two),
// the watermark time parsed once per event without Date.parse or startsWith, and no plan object
// for a reaction without effects (reactInto).
// 2026-11-27 (late timers, change.state): a reaction without effects reads no time and releases
// nothing (events release no timer); change.state is made only when read, so a reactor that does
// not read it pays one more empty slot per change.
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
const { createProjector } = await import(join(ROOT, 'dist/index.js'));
const { defineReactor } = await import(join(ROOT, 'dist/core/reactors/index.js'));
const { planReaction, reactInto } = await import(join(ROOT, 'dist/core/reactors/plan-reaction.js'));
const { ReactorEffects } = await import(join(ROOT, 'dist/core/reactors/reactor-effects.js'));
const ROUNDS = Number(opts.rounds);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');

// One receivedAt per event, one second apart, canonical ISO (the webhook server's form).
const START = Date.parse('2026-01-01T00:00:00.000Z');
const records = [...generateEvents({ seed: 11, signRequests: Number(opts.requests) })].map(
  (event, i) => ({
    kind: 'entry',
    position: i + 1,
    line: i + 1,
    receivedAt: new Date(START + i * 1000).toISOString(),
    deliveryId: undefined,
    event,
    raw: '',
  }),
);
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
// Reactors that read change.state (the event's request with every participant, or its template)
// for every event, and return []: what seeing the state costs a reactor that uses it.
const { listParticipants } = await import(join(ROOT, 'dist/index.js'));
let participantsSeen = 0;
const reading = [1, 2].map((i) =>
  defineReactor({
    name: `reading-${i}`,
    react: ({ event, state }) => {
      if ('signRequestId' in event) {
        for (const _ of listParticipants(state, event.signRequestId)) participantsSeen += 1;
      }
      return [];
    },
    execute: async () => {},
  }),
);

// What a store does per applied event, in steps, so the figure says where the cost goes: the
// views and the change alone (a no-op onApplied), then planReaction, then ReactorEffects.applyPlan.
const modes = {
  plain: () => undefined,
  hook: () => () => {},
  plan: () => (change) => {
    for (const reactor of silent) planReaction(reactor, change);
  },
  full: () => {
    const book = new ReactorEffects();
    return (change) => {
      for (const reactor of silent) reactInto(book, reactor, change);
    };
  },
  state: () => {
    const book = new ReactorEffects();
    return (change) => {
      for (const reactor of reading) reactInto(book, reactor, change);
    };
  },
};

const replay = async (mode) => {
  const projector = createProjector({ audit: false, onApplied: modes[mode]() });
  const started = performance.now();
  (await projector.replay(log))._unsafeUnwrap();
  return { ms: performance.now() - started, applied: projector.stats().applied };
};

const runs = Object.fromEntries(Object.keys(modes).map((mode) => [mode, []]));
for (const mode of Object.keys(modes)) await replay(mode); // warm-up
for (let round = 0; round < ROUNDS; round += 1) {
  for (const mode of Object.keys(modes)) runs[mode].push(await replay(mode));
}
const applied = runs.plain[0].applied;
const rateOf = (mode) => applied / (median(runs[mode].map((r) => r.ms)) / 1000);
const plainRate = rateOf('plain');
const reactingRate = rateOf('full');
const ratio = reactingRate / plainRate;
const nsPerEvent = (mode, than) =>
  (
    ((median(runs[mode].map((r) => r.ms)) - median(runs[than].map((r) => r.ms))) * 1e6) /
    applied
  ).toFixed(0);
const section = `<!-- bench/reactors-cost.js -->
## The core's cost of reactors (bench/reactors-cost.js)

${fmt(records.length)} generated events in memory (seed 11, ${fmt(Number(opts.requests))} sign requests, a receivedAt per event), ${fmt(applied)} applied; ${ROUNDS} alternating rounds, medians; load average at start ${load} (2 cores, shared). No file and no journal: this is the pure core's share of the catch-up cost in bench/reactors.js.

| measure | median | target | met |
|---|---:|---:|:---:|
| plain replay (createProjector().replay) | ${fmt(plainRate)} events/s |  |  |
| a no-op onApplied (the change, and pre-images of what each event writes) | ${fmt(rateOf('hook'))} events/s | | (${(rateOf('hook') / plainRate).toFixed(2)}) |
| + planReaction for 2 reactors whose react returns [] | ${fmt(rateOf('plan'))} events/s | | (${(rateOf('plan') / plainRate).toFixed(2)}) |
| reactInto a ReactorEffects instead (what the file runner does per applied event) | ${fmt(reactingRate)} events/s | (diagnostic) | (${ratio.toFixed(2)}) |
| the same with 2 reactors whose react reads change.state (listParticipants of the event's request) | ${fmt(rateOf('state'))} events/s | (diagnostic) | (${(rateOf('state') / plainRate).toFixed(2)}) |

Per applied event: the change and the pre-images ${nsPerEvent('hook', 'plain')} ns, planReaction × 2 ${nsPerEvent('plan', 'hook')} ns, reactInto × 2 ${nsPerEvent('full', 'hook')} ns, reading change.state in both reactors ${nsPerEvent('state', 'full')} ns more (${(participantsSeen / (ROUNDS + 1) / applied).toFixed(1)} participants seen per event), against ${((median(runs.plain.map((r) => r.ms)) * 1e6) / applied).toFixed(0)} ns for the plain replay's whole work on an in-memory log.
`;
console.log(section);
if (!opts['no-write']) replaceResultsSection('<!-- bench/reactors-cost.js -->', section);
