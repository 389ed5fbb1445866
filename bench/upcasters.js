// Upcasters on replay (npm run bench): what an identity upcaster that matches every record costs
// (target ≤ 10 %). The same generated log is replayed without upcasters and with one
// (`from` a predicate answering true, `to` returning its argument), so every record takes the
// upcast path: the predicate, the call, the bookkeeping of who made the event, and its decode.
// Pairs of runs alternate; medians, and the median of the per-pair ratios. Without upcasters the
// projector pays one length test per record. Writes its section of bench/RESULTS.md unless
// --no-write.
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateEvents, writeNdjson } from './generate-stream.js';
import { replaceResultsSection } from './results-section.js';

const { values: opts } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '11' },
    'no-write': { type: 'boolean', default: false },
  },
});
const ROOT = join(import.meta.dirname, '..');
const { createProjector } = await import(join(ROOT, 'dist/index.js'));
const { readFileEventLog } = await import(join(ROOT, 'dist/store/index.js'));
const { defineUpcaster } = await import(join(ROOT, 'dist/core/upcasters/index.js'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');

const dir = join(tmpdir(), `signfold-bench-upcasters-${process.pid}`);
mkdirSync(dir, { recursive: true });
const log = join(dir, 'events.ndjson');
const events = [...generateEvents({ seed: 11, signRequests: Number(opts.requests) })];
writeNdjson(log, events, { envelope: true, seed: 3 });
const load = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');

const identity = defineUpcaster({ name: 'identity', from: () => true, to: (wire) => wire });

const replay = async (upcasters) => {
  const started = performance.now();
  const projector = createProjector({ audit: false, upcasters });
  const stats = (await projector.replay({ read: (o) => readFileEventLog(log, o) }))._unsafeUnwrap();
  return { ms: performance.now() - started, stats };
};

// The two must fold alike, or the comparison measures something else.
const check = [await replay([]), await replay([identity])];
if (JSON.stringify(check[0].stats) !== JSON.stringify(check[1].stats)) {
  throw new Error('an identity upcaster changed the replay: the bench measures nothing');
}

const plain = [];
const upcast = [];
for (let round = 0; round < Number(opts.rounds); round += 1) {
  if (round % 2 === 0) {
    plain.push((await replay([])).ms);
    upcast.push((await replay([identity])).ms);
  } else {
    upcast.push((await replay([identity])).ms);
    plain.push((await replay([])).ms);
  }
}
rmSync(dir, { recursive: true, force: true });

const plainMs = median(plain);
const upcastMs = median(upcast);
const pairRatios = plain.map((ms, i) => upcast[i] / ms);
const pairedRatio = median(pairRatios);
// The range, so a reader sees how far one pair may stray from the median on this host.
const pairRange = `${Math.min(...pairRatios).toFixed(3)}–${Math.max(...pairRatios).toFixed(3)}`;
const perEventNs = ((upcastMs - plainMs) * 1e6) / events.length;
const section = `<!-- bench/upcasters.js -->
## Upcasters on replay (bench/upcasters.js)

${fmt(events.length)} generated events (seed 11, ${fmt(Number(opts.requests))} sign requests, envelope NDJSON), replayed without upcasters and with one identity upcaster that matches every record (a predicate answering true, \`to\` returning its argument); load average at start ${load} (2 cores, shared). ${opts.rounds} pairs of runs, the order alternating; medians, and the median of the per-pair ratios. Target: ≤ 10 %.

| measure | median |
|---|---:|
| replay without upcasters | ${fmt(plainMs)} ms (${fmt(events.length / (plainMs / 1000))} events/s) |
| replay with an identity upcaster | ${fmt(upcastMs)} ms (${fmt(events.length / (upcastMs / 1000))} events/s) |
| ratio, per pair: median (range) | ${pairedRatio.toFixed(3)} (${pairRange}) |
| cost per event | ${perEventNs.toFixed(0)} ns |
`;
console.log(section);
if (!opts['no-write']) replaceResultsSection('<!-- bench/upcasters.js -->', section);
