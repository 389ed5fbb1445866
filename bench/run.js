// signfold benchmark harness (npm run bench). Everything runs in one process,
// side by side, several rounds; medians are reported. See bench/README.md.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createProjector, decodeEvent, fold, initialState } from '../dist/index.js';
import { readFileEventLog } from '../dist/store/file-record-stream.js';
import { readSplitParse } from './baseline.js';
import { generateEvents, writeNdjson } from './generate-stream.js';
import { runInterleaved } from './interleaved.js';
import { naiveImmerFold } from './naive-immer.js';

const { values: opts } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '5' },
    large: { type: 'string', default: '1000000' },
    quick: { type: 'boolean', default: false },
    'open-requests': { type: 'string', default: '30000' },
    'open-folds': { type: 'string', default: '1,1000,30000' },
    write: { type: 'boolean', default: true },
    'no-write': { type: 'boolean', default: false },
  },
});
const EVENTS = opts.quick ? 100_000 : Number(opts.events);
const ROUNDS = opts.quick ? 3 : Number(opts.rounds);
const LARGE = opts.quick ? 100_000 : Number(opts.large);
const here = import.meta.dirname;
// The machine may be shared: the load average says how far to trust the figures.
const loadAtStart = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
const gc = globalThis.gc ?? (() => {});
if (globalThis.gc === undefined) console.error('note: run with --expose-gc for heap figures');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const log = (...a) => console.log(...a);

/** @param {number} count */
const takeEvents = (count, seed = 42) => {
  const out = [];
  for (const e of generateEvents({ seed, signRequests: Math.ceil(count / 6) + 10 })) {
    out.push(e);
    if (out.length === count) break;
  }
  return out;
};

// --- the stream file -------------------------------------------------------
mkdirSync(join(here, 'out'), { recursive: true });
const file = join(here, 'out', `stream-${EVENTS}.ndjson`);
if (!existsSync(file)) {
  log(`generating ${fmt(EVENTS)} events → ${file}`);
  writeNdjson(file, takeEvents(EVENTS), { envelope: true, seed: 42 });
}
const bytes = statSync(file).size;
const MB = bytes / 1e6;
log(`stream: ${fmt(EVENTS)} events, ${MB.toFixed(1)} MB (${Math.round(bytes / EVENTS)} B/event)`);

const replayFile = async (audit) => {
  const projector = createProjector({ audit });
  const result = await projector.replay({ read: (o) => readFileEventLog(file, o) });
  if (result.isErr()) throw new Error(result.error.message);
  return projector;
};

// --- 1, 2: baseline vs end-to-end replay, alternating ------------------------
const base = [];
const replay = [];
const replayAudit = [];
for (let round = 0; round < ROUNDS; round += 1) {
  gc();
  let t = performance.now();
  const lines = await readSplitParse(file);
  base.push(performance.now() - t);
  gc();
  t = performance.now();
  const p = await replayFile(false);
  replay.push(performance.now() - t);
  if (lines !== EVENTS || p.checkpoint !== EVENTS) throw new Error('count mismatch');
  gc();
  t = performance.now();
  await replayFile(true);
  replayAudit.push(performance.now() - t);
  log(
    `round ${round + 1}: baseline ${base.at(-1).toFixed(0)} ms, replay ${replay.at(-1).toFixed(0)} ms, replay+audit ${replayAudit.at(-1).toFixed(0)} ms`,
  );
}
const eps = (ms, n = EVENTS) => (n / ms) * 1000;
const baseEps = eps(median(base));
const replayEps = eps(median(replay));
const replayAuditEps = eps(median(replayAudit));

// --- decode cost vs JSON.parse, live apply ---------------------------------
const text = readFileSync(file, 'utf8');
const lines = text.split('\n').filter((l) => l.length > 0);
const parseMs = [];
const decodeMs = [];
const liveMs = [];
// Decode cost is compared with parsing the event's own JSON text, not its envelope line.
const eventTexts = lines.map((l) => JSON.stringify(JSON.parse(l).event));
for (let round = 0; round < ROUNDS; round += 1) {
  gc();
  let t = performance.now();
  const parsed = eventTexts.map((text) => JSON.parse(text));
  parseMs.push(performance.now() - t);
  t = performance.now();
  let ok = 0;
  for (const v of parsed) if (decodeEvent(v).isOk()) ok += 1;
  decodeMs.push(performance.now() - t);
  if (ok !== parsed.length) throw new Error('decode failures in a clean stream');
  gc();
  const projector = createProjector({ audit: true });
  t = performance.now();
  for (let i = 0; i < lines.length; i += 1) {
    const envelope = JSON.parse(lines[i]);
    projector.apply({
      position: envelope.position,
      event: envelope.event,
      receivedAt: envelope.receivedAt,
      raw: lines[i],
    });
  }
  liveMs.push(performance.now() - t);
}
const decodeRatio = median(decodeMs) / median(parseMs);
const liveEps = eps(median(liveMs));

// --- 3: naive immer, on a smaller stream, time-capped ----------------------
const NAIVE = Math.min(EVENTS, 50_000);
const naiveEvents = lines.slice(0, NAIVE).map((l) => JSON.parse(l).event);
const naive = naiveImmerFold(naiveEvents, 30_000);
const naiveEps = eps(naive.ms, naive.processed);
gc();
const t0 = performance.now();
fold(
  initialState(),
  naiveEvents.map((e) => decodeEvent(e)._unsafeUnwrap()),
);
const signfoldSmallEps = eps(performance.now() - t0, NAIVE);

// --- scaling: fold over decoded events, small vs large ----------------------
const scale = (signRequests) => {
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const decoded = [];
  for (const e of generateEvents({ seed: 7, signRequests }))
    decoded.push(decodeEvent(e)._unsafeUnwrap());
  const times = [];
  let state;
  for (let round = 0; round < Math.min(ROUNDS, 3); round += 1) {
    state = undefined;
    gc();
    const t = performance.now();
    state = fold(initialState(), decoded).state;
    times.push(performance.now() - t);
  }
  const events = decoded.length;
  decoded.length = 0;
  gc();
  const heap = process.memoryUsage().heapUsed - heapBefore;
  let participants = 0;
  for (const m of state.participants.values()) participants += m.size;
  const records = state.signRequests.size + participants + state.templates.size;
  return { signRequests, events, eps: eps(median(times), events), heap, records, participants };
};
const small = scale(10_000);
const large = scale(LARGE);

// --- interleaved streams: whole processes, and the fold by open requests -------
gc();
const OPEN = opts.quick ? 3_000 : Number(opts['open-requests']);
const interleaved = await runInterleaved({
  signRequests: OPEN,
  concurrent: OPEN,
  rounds: Math.max(ROUNDS, opts.quick ? 3 : 7),
  foldConcurrencies: opts['open-folds']
    .split(',')
    .map(Number)
    .filter((n) => n <= OPEN),
});

// --- report ------------------------------------------------------------------
const rows = [
  ['1. baseline: read + split + JSON.parse', baseEps, MB / (median(base) / 1000)],
  ['2. signfold replay (decode + fold, all projections)', replayEps, MB / (median(replay) / 1000)],
  ['2b. signfold replay with audit trails', replayAuditEps, MB / (median(replayAudit) / 1000)],
  [
    `3. naive immer produce per event (${fmt(naive.processed)} of ${fmt(NAIVE)} events)`,
    naiveEps,
    undefined,
  ],
  [`3b. signfold decode + fold of the same ${fmt(NAIVE)} events`, signfoldSmallEps, undefined],
  ['4. live apply, one event at a time (parse + decode + apply + audit)', liveEps, undefined],
];
const table = [
  '| path | events/s (median) | MB/s |',
  '|---|---:|---:|',
  ...rows.map(
    ([name, e, mbs]) => `| ${name} | ${fmt(e)} | ${mbs === undefined ? '' : mbs.toFixed(1)} |`,
  ),
].join('\n');
const scaling = [
  '| sign requests | events | fold events/s (median) | heap after fold | bytes/record |',
  '|---:|---:|---:|---:|---:|',
  ...[small, large].map(
    (s) =>
      `| ${fmt(s.signRequests)} | ${fmt(s.events)} | ${fmt(s.eps)} | ${(s.heap / 2 ** 20).toFixed(0)} MiB | ${fmt(s.heap / s.records)} |`,
  ),
].join('\n');
const targets = [
  ['replay (2) / baseline (1) ≥ 0.75', replayEps / baseEps, replayEps / baseEps >= 0.75],
  ['replay (2) / naive immer (3)', replayEps / naiveEps, true],
  ['fold at large / fold at 10k ≥ 1/1.3', large.eps / small.eps, large.eps / small.eps >= 1 / 1.3],
  ['live apply ≥ 200k events/s', liveEps, liveEps >= 200_000],
  ['heap after large fold < 2 GiB', large.heap / 2 ** 30, large.heap < 2 ** 31],
  ['decode / JSON.parse < 0.25', decodeRatio, decodeRatio < 0.25],
];
const targetTable = [
  '| target | measured | met |',
  '|---|---:|:---:|',
  ...targets.map(
    ([name, v, met]) =>
      `| ${name} | ${v >= 1000 ? fmt(v) : v.toFixed(3)} | ${met ? 'yes' : '**no**'} |`,
  ),
].join('\n');
const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`;
const report = `# Benchmark results

Generated by \`npm run bench\` (bench/run.js). Medians of ${ROUNDS} rounds run side by side in one process.

- date: ${new Date().toISOString().slice(0, 10)}
- machine: ${machine}
- Node ${process.version}, ${process.platform}/${process.arch}
- load average (1, 5, 15 min) at start / end: ${loadAtStart} / ${loadavg()
  .map((l) => l.toFixed(2))
  .join(' ')}
- stream: ${fmt(EVENTS)} events (envelope NDJSON), ${MB.toFixed(1)} MB, ${Math.round(bytes / EVENTS)} bytes/event

## Replay throughput

${table}

## Scaling (fold over decoded events)

${scaling}

## Targets

${targetTable}

Decode cost: ${((median(decodeMs) / lines.length) * 1e6).toFixed(0)} ns/event vs JSON.parse ${((median(parseMs) / lines.length) * 1e6).toFixed(0)} ns/event.

${interleaved}`;
log(`\n${report}`);
if (opts.write && !opts['no-write'] && !opts.quick) {
  // Keep the sections other benchmarks write at the end of the file (<!-- bench/… --> onwards).
  const previous = existsSync(join(here, 'RESULTS.md'))
    ? readFileSync(join(here, 'RESULTS.md'), 'utf8')
    : '';
  const kept = previous.indexOf('<!-- bench/');
  writeFileSync(
    join(here, 'RESULTS.md'),
    kept === -1 ? report : `${report.trimEnd()}\n\n${previous.slice(kept)}`,
  );
  log('wrote bench/RESULTS.md');
}
