// Realistic interleaved streams (issue 10): many sign requests open at once, so
// consecutive events belong to unrelated requests. Measures
//  - whole processes: `signfold replay FILE` against a parse-only process
//    (bench/parse-only.js), bare and envelope lines, alternating rounds, medians;
//  - in process: the fold of decoded events per open-request count.
// Run alone with `node bench/interleaved.js [--rounds N] [--concurrent N] [--requests N]
// [--write]` (--write: rewrite RESULTS.md's interleaved sections alone; for the folds it runs
// itself again with --expose-gc), or
// `--processes-only [--ascii]`, or through `npm run bench` (bench/run.js), which writes
// the tables to RESULTS.md. Each stream also in an ASCII-name copy.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeEvent, fold, initialState } from '../dist/index.js';
import { generateEvents, writeNdjson } from './generate-stream.js';
import { RESULTS_FILE } from './results-section.js';

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
 * The ASCII spelling of a letter the generated names use (`ü` → `u`, `’` → `'`): its
 * canonical decomposition without the combining marks, `?` for anything else.
 * @param {string} c
 */
const asciiLetter = (c) => {
  if (c === '\u2019') return "'";
  const bare = c.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  return /^[\x20-\x7e]+$/.test(bare) ? bare : '?';
};

/**
 * Copies `from` to `to` with every non-ASCII character spelled in ASCII (see
 * `asciiLetter`): the same events, in the same order, with names like `Muller` and
 * `Jose`. Non-ASCII text only occurs inside the names, so the lines stay valid JSON.
 * @param {string} from
 * @param {string} to
 */
const NON_ASCII = /[\u0080-\u{10ffff}]/gu;
const transliterate = async (from, to) => {
  const fd = openSync(to, 'w');
  let tail = '';
  for await (const chunk of createReadStream(from, { encoding: 'utf8', highWaterMark: 1 << 22 })) {
    const text = tail + chunk;
    const end = text.lastIndexOf('\n') + 1;
    tail = text.slice(end);
    writeSync(fd, text.slice(0, end).replace(NON_ASCII, asciiLetter));
  }
  writeSync(fd, tail.replace(NON_ASCII, asciiLetter));
  closeSync(fd);
};

/**
 * The stream file for `signRequests` requests with `concurrent` open at once, generated
 * once into bench/out/ (git-ignored) and reused. With `ascii`, the same stream with its
 * names spelled in ASCII (`JSON.parse` is much faster on pure-ASCII text).
 * @param {{ signRequests: number, concurrent: number, envelope: boolean, ascii?: boolean }} o
 */
export const streamFile = async ({ signRequests, concurrent, envelope, ascii = false }) => {
  mkdirSync(join(here, 'out'), { recursive: true });
  const stem = `interleaved-${signRequests}-${concurrent}-${envelope ? 'envelope' : 'bare'}`;
  const path = join(here, 'out', `${stem}${ascii ? '-ascii' : ''}.ndjson`);
  if (!existsSync(path)) {
    const tmp = `${path}.tmp`;
    if (ascii) await transliterate(await streamFile({ signRequests, concurrent, envelope }), tmp);
    else {
      writeNdjson(tmp, generateEvents({ seed: SEED, signRequests, concurrent }), {
        envelope,
        seed: SEED,
      });
    }
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

/** The streams measured as whole processes, in table order. */
export const STREAMS = [
  { lines: 'bare', envelope: false, ascii: false },
  { lines: 'envelope', envelope: true, ascii: false },
  { lines: 'bare, ASCII names', envelope: false, ascii: true },
  { lines: 'envelope, ASCII names', envelope: true, ascii: true },
];
/** Issue 47: replay at least as fast as parsing alone, on every stream. */
const TARGET = 1;

const PROCESSES_HEADER = `| lines | processor | Node | load (1 min) | file | parse-only ms (range) | \`signfold replay\` ms (range) | ratio | target |
|---|---|---|---:|---:|---:|---:|---:|---:|`;
const FOLDS_HEADER = `| processor | Node | load (1 min) | open at once | events | fold ms (median) | ns/event | × grouped |
|---|---|---|---:|---:|---:|---:|---:|`;

/** The processor the figures were measured on, as a table cell (no `|`). */
export const processorName = () =>
  `${(cpus()[0]?.model ?? 'unknown processor').trim()}, ${cpus().length} cores`.replaceAll(
    '|',
    '/',
  );

/**
 * The rows of `previous` (a RESULTS.md text) under the table header `header` whose
 * `column`-th cell is not `processor`: what other processors measured, kept beside
 * this run's rows.
 * @param {string} previous
 * @param {string} header
 * @param {number} column
 * @param {string} processor
 */
export const otherProcessorRows = (previous, header, column, processor) => {
  const at = previous.indexOf(header);
  if (at === -1) return [];
  const rows = [];
  for (const line of previous.slice(at + header.length + 1).split('\n')) {
    if (!line.startsWith('|')) break;
    if (line.split('|')[column + 1]?.trim() !== processor) rows.push(line);
  }
  return rows;
};

/**
 * Markdown sections for RESULTS.md: this run's rows, one per stream (or open-request
 * count) for this processor, after the rows `previous` holds for other processors.
 */
export const interleavedReport = ({
  processes,
  folds,
  rounds,
  loadBefore,
  loadAfter,
  previous = '',
}) => {
  const mb = (b) => (b / 1e6).toFixed(0);
  const range = ([lo, hi]) => `${fmt(lo)}–${fmt(hi)}`;
  const grouped = folds[0];
  const processor = processorName();
  const node = process.version;
  const loads = `${loadBefore.split(' ')[0]}–${loadAfter.split(' ')[0]}`;
  const processRows = STREAMS.map(({ lines }) => {
    const p = processes.byLines[lines];
    return `| ${lines} | ${processor} | ${node} | ${loads} | ${mb(p.bytes)} MB | ${fmt(p.base)} (${range(p.baseRange)}) | ${fmt(p.replay)} (${range(p.replayRange)}) | ${p.ratio.toFixed(2)} | ≥ ${TARGET.toFixed(2)} |`;
  });
  const foldRows = folds.map(
    (f) =>
      `| ${processor} | ${node} | ${loads} | ${fmt(f.concurrent)} | ${fmt(f.events)} | ${fmt(f.ms)} | ${fmt(f.nsPerEvent)} | ${(f.nsPerEvent / grouped.nsPerEvent).toFixed(2)} |`,
  );
  const bare = processes.byLines.bare;
  return `## Interleaved streams, whole processes

${fmt(bare.events)} events of ${fmt(processes.signRequests)} sign requests, ${fmt(processes.concurrent)} open at once (bench/interleaved.js; \`node bench/interleaved.js --write\` measures and rewrites these two sections alone). Each row: medians of ${rounds} alternating rounds of two separate processes, wall time from spawn to exit; the parse-only process streams the file, splits lines and \`JSON.parse\`s each (bench/parse-only.js); ratio = parse-only ÷ replay. The generated names include non-ASCII letters (\`Müller\`, \`José\`); the ASCII rows replay the same streams with those names spelled in ASCII (\`Muller\`, \`Jose\`), on which \`JSON.parse\` is much faster. One row per stream and processor: a run replaces its processor's rows and keeps the others. Load: the 1-minute load average before and after the run (last run: ${loadBefore} / ${loadAfter}, ${processor}, shared).

${PROCESSES_HEADER}
${[...otherProcessorRows(previous, PROCESSES_HEADER, 1, processor), ...processRows].join('\n')}

## Interleaved streams, fold in process

The fold of decoded events of the same ${fmt(processes.signRequests)} requests, by how many are open at once (1 = grouped by request), medians of ${rounds} rounds. Target: interleaved within 1.3× of grouped per event.

${FOLDS_HEADER}
${[...otherProcessorRows(previous, FOLDS_HEADER, 0, processor), ...foldRows].join('\n')}
`;
};

/**
 * Whole-process comparisons on every stream of {@link STREAMS}.
 * @param {{ signRequests: number, concurrent: number, rounds: number }} o
 */
const compareStreams = async ({ signRequests, concurrent, rounds }) => {
  /** @type {Record<string, ReturnType<typeof compareProcesses>>} */
  const byLines = {};
  for (const { lines, envelope, ascii } of STREAMS) {
    console.log(`  ${lines}:`);
    const file = await streamFile({ signRequests, concurrent, envelope, ascii });
    byLines[lines] = compareProcesses(file, rounds);
    console.log(`  ${lines}: ratio ${byLines[lines].ratio.toFixed(3)}`);
  }
  return byLines;
};

/** Runs everything; used by bench/run.js and when this file is run directly. */
export const runInterleaved = async ({
  signRequests,
  concurrent,
  rounds,
  foldConcurrencies,
  previous = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : '',
}) => {
  const loadBefore = load();
  console.log(`interleaved: ${fmt(signRequests)} requests, ${fmt(concurrent)} open at once`);
  const byLines = await compareStreams({ signRequests, concurrent, rounds });
  const folds = foldByConcurrency(signRequests, foldConcurrencies, rounds);
  const loadAfter = load();
  return interleavedReport({
    processes: { signRequests, concurrent, byLines },
    folds,
    rounds,
    loadBefore,
    loadAfter,
    previous,
  });
};

/**
 * Puts `sections` in place of RESULTS.md's interleaved sections (from their heading to
 * the next `<!-- bench/` marker), leaving the rest of the file as it is.
 * @param {string} sections
 */
const writeInterleavedSections = (sections) => {
  const previous = readFileSync(RESULTS_FILE, 'utf8');
  const start = previous.indexOf('## Interleaved streams, whole processes');
  if (start === -1) throw new Error(`no interleaved sections in ${RESULTS_FILE}`);
  const next = previous.indexOf('<!-- bench/', start);
  const after = next === -1 ? '' : `\n${previous.slice(next)}`;
  writeFileSync(RESULTS_FILE, `${previous.slice(0, start)}${sections.trimEnd()}\n${after}`);
};

if (process.argv[1] === import.meta.filename) {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '7' },
      requests: { type: 'string', default: '30000' },
      concurrent: { type: 'string', default: '30000' },
      folds: { type: 'string', default: '1,1000,30000' },
      'processes-only': { type: 'boolean', default: false },
      ascii: { type: 'boolean', default: false },
      write: { type: 'boolean', default: false },
    },
  });
  const signRequests = Number(values.requests);
  const concurrent = Number(values.concurrent);
  const rounds = Number(values.rounds);
  if (values['processes-only']) {
    // --ascii: the ASCII-name streams only; otherwise all four.
    for (const { lines, envelope, ascii } of STREAMS) {
      if (values.ascii && !ascii) continue;
      const file = await streamFile({ signRequests, concurrent, envelope, ascii });
      const r = compareProcesses(file, rounds);
      console.log(
        `${lines}: parse-only ${r.base.toFixed(0)} ms, replay ${r.replay.toFixed(0)} ms, ratio ${r.ratio.toFixed(3)}`,
      );
    }
  } else if (globalThis.gc === undefined) {
    // The folds in process collect the garbage before each round (as bench/run.js runs them):
    // without, a round of 30,000 open requests could pay for the rounds before it (measured
    // alternately: 1.03 to 2.64 × grouped without, 1.07 to 1.47 with).
    const run = spawnSync(process.execPath, ['--expose-gc', ...process.argv.slice(1)], {
      stdio: 'inherit',
    });
    process.exitCode = run.status ?? 1;
  } else {
    const foldConcurrencies = values.folds.split(',').map(Number);
    const sections = await runInterleaved({ signRequests, concurrent, rounds, foldConcurrencies });
    console.log(sections);
    if (values.write) writeInterleavedSections(sections);
  }
}
