// Realistic interleaved streams (issue 10): many sign requests open at once, so
// consecutive events belong to unrelated requests. Measures
//  - whole processes: `signfold replay FILE` against a parse-only process
//    (bench/parse-only.js), bare and envelope lines, alternating rounds, medians;
//  - in process: the fold of decoded events per open-request count.
// Run alone with `node bench/interleaved.js [--rounds N] [--concurrent N] [--requests N]`,
// or through `npm run bench` (bench/run.js), which writes the tables to RESULTS.md.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeEvent, fold, initialState } from '../dist/index.js';
import { generateEvents, writeNdjson } from './generate-stream.js';

const here = import.meta.dirname;
const SEED = 10;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/**
 * The stream file for `signRequests` requests with `concurrent` open at once, generated
 * once into bench/out/ (git-ignored) and reused.
 * @param {{ signRequests: number, concurrent: number, envelope: boolean }} o
 */
export const streamFile = ({ signRequests, concurrent, envelope }) => {
  mkdirSync(join(here, 'out'), { recursive: true });
  const name = `interleaved-${signRequests}-${concurrent}-${envelope ? 'envelope' : 'bare'}.ndjson`;
  const path = join(here, 'out', name);
  if (!existsSync(path)) {
    const tmp = `${path}.tmp`;
    writeNdjson(tmp, generateEvents({ seed: SEED, signRequests, concurrent }), {
      envelope,
      seed: SEED,
    });
    renameSync(tmp, path);
  }
  return path;
};

/** Wall time of one process, from spawn to exit, in ms. @param {string[]} args */
const timeProcess = (args) => {
  const t = performance.now();
  const run = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - t;
  if (run.status !== 0) throw new Error(`${args.join(' ')} failed: ${run.stderr}`);
  return { ms, stdout: run.stdout.toString() };
};

const CLI = join(here, '..', 'dist', 'cli', 'main.js');
const PARSE_ONLY = join(here, 'parse-only.js');

/**
 * Whole-process comparison on one file: rounds alternate baseline and replay.
 * @param {string} file
 * @param {number} rounds
 */
export const compareProcesses = (file, rounds, log = console.log) => {
  const base = [];
  const replay = [];
  let events = 0;
  for (let round = 0; round < rounds; round += 1) {
    const b = timeProcess([PARSE_ONLY, file]);
    base.push(b.ms);
    events = Number(b.stdout.trim());
    const r = timeProcess([CLI, 'replay', file]);
    replay.push(r.ms);
    if (!r.stdout.includes(`${events} processed`))
      throw new Error(`unexpected summary: ${r.stdout}`);
    log(
      `  round ${round + 1}: parse-only ${b.ms.toFixed(0)} ms, signfold replay ${r.ms.toFixed(0)} ms (load ${load()})`,
    );
  }
  const b = median(base);
  const r = median(replay);
  return {
    events,
    bytes: statSync(file).size,
    base: b,
    replay: r,
    ratio: b / r,
    baseRange: [Math.min(...base), Math.max(...base)],
    replayRange: [Math.min(...replay), Math.max(...replay)],
  };
};

/**
 * Fold of decoded events, in process, for several open-request counts over the same
 * number of requests: the per-event cost of folding in random order against grouped.
 * @param {number} signRequests
 * @param {number[]} concurrencies
 * @param {number} rounds
 */
export const foldByConcurrency = (signRequests, concurrencies, rounds, log = console.log) => {
  const gc = globalThis.gc ?? (() => {});
  const rows = [];
  for (const concurrent of concurrencies) {
    const decoded = [];
    for (const e of generateEvents({ seed: SEED, signRequests, concurrent })) {
      decoded.push(decodeEvent(e)._unsafeUnwrap());
    }
    const times = [];
    for (let round = 0; round < rounds; round += 1) {
      gc();
      const t = performance.now();
      const { conflicts } = fold(initialState(), decoded);
      times.push(performance.now() - t);
      if (conflicts.length > 0) throw new Error('conflicts in a clean stream');
    }
    const ms = median(times);
    rows.push({ concurrent, events: decoded.length, ms, nsPerEvent: (ms / decoded.length) * 1e6 });
    log(`  fold, ${fmt(concurrent)} open: ${ms.toFixed(0)} ms for ${fmt(decoded.length)} events`);
  }
  return rows;
};

/** Markdown tables for RESULTS.md. */
export const interleavedReport = ({ processes, folds, rounds, loadBefore, loadAfter }) => {
  const mb = (b) => (b / 1e6).toFixed(0);
  const range = ([lo, hi]) => `${fmt(lo)}–${fmt(hi)}`;
  const grouped = folds[0];
  return `## Interleaved streams, whole processes

${fmt(processes.bare.events)} events of ${fmt(processes.signRequests)} sign requests, ${fmt(processes.concurrent)} open at once (bench/interleaved.js). Each row: medians of ${rounds} alternating rounds of two separate processes, wall time from spawn to exit; the parse-only process streams the file, splits lines and \`JSON.parse\`s each (bench/parse-only.js). Load average before / after: ${loadBefore} / ${loadAfter} (2 cores, shared).

| lines | file | parse-only ms (range) | \`signfold replay\` ms (range) | ratio | target |
|---|---:|---:|---:|---:|---:|
| bare | ${mb(processes.bare.bytes)} MB | ${fmt(processes.bare.base)} (${range(processes.bare.baseRange)}) | ${fmt(processes.bare.replay)} (${range(processes.bare.replayRange)}) | ${processes.bare.ratio.toFixed(2)} | ≥ 0.75 |
| envelope | ${mb(processes.envelope.bytes)} MB | ${fmt(processes.envelope.base)} (${range(processes.envelope.baseRange)}) | ${fmt(processes.envelope.replay)} (${range(processes.envelope.replayRange)}) | ${processes.envelope.ratio.toFixed(2)} | ≥ 0.85 |

## Interleaved streams, fold in process

The fold of decoded events of the same ${fmt(processes.signRequests)} requests, by how many are open at once (1 = grouped by request). Target: interleaved within 1.3× of grouped per event.

| open at once | events | fold ms (median) | ns/event | × grouped |
|---:|---:|---:|---:|---:|
${folds.map((f) => `| ${fmt(f.concurrent)} | ${fmt(f.events)} | ${fmt(f.ms)} | ${fmt(f.nsPerEvent)} | ${(f.nsPerEvent / grouped.nsPerEvent).toFixed(2)} |`).join('\n')}
`;
};

/** Runs everything; used by bench/run.js and when this file is run directly. */
export const runInterleaved = ({ signRequests, concurrent, rounds, foldConcurrencies }) => {
  const loadBefore = load();
  const log = console.log;
  log(`interleaved: ${fmt(signRequests)} requests, ${fmt(concurrent)} open at once`);
  const bare = compareProcesses(streamFile({ signRequests, concurrent, envelope: false }), rounds);
  const envelope = compareProcesses(
    streamFile({ signRequests, concurrent, envelope: true }),
    rounds,
  );
  log(`  bare ratio ${bare.ratio.toFixed(2)}, envelope ratio ${envelope.ratio.toFixed(2)}`);
  const folds = foldByConcurrency(signRequests, foldConcurrencies, rounds);
  const loadAfter = load();
  return interleavedReport({
    processes: { signRequests, concurrent, bare, envelope },
    folds,
    rounds,
    loadBefore,
    loadAfter,
  });
};

if (process.argv[1] === import.meta.filename) {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '7' },
      requests: { type: 'string', default: '30000' },
      concurrent: { type: 'string', default: '30000' },
      folds: { type: 'string', default: '1,1000,30000' },
      'processes-only': { type: 'boolean', default: false },
    },
  });
  const signRequests = Number(values.requests);
  const concurrent = Number(values.concurrent);
  const rounds = Number(values.rounds);
  if (values['processes-only']) {
    for (const envelope of [false, true]) {
      const r = compareProcesses(streamFile({ signRequests, concurrent, envelope }), rounds);
      console.log(
        `${envelope ? 'envelope' : 'bare'}: parse-only ${r.base.toFixed(0)} ms, replay ${r.replay.toFixed(0)} ms, ratio ${r.ratio.toFixed(3)}`,
      );
    }
  } else {
    const foldConcurrencies = values.folds.split(',').map(Number);
    console.log(runInterleaved({ signRequests, concurrent, rounds, foldConcurrencies }));
  }
}
