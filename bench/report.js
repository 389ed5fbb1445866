// `signfold report` versus `signfold replay` on a large log, whole processes
// (start-up, reading, folding, and for the report: model, rendering, writing),
// alternating, several rounds, medians; then the page's size and the time
// chromium takes to open it. `npm run bench:report`; writes its section of
// bench/RESULTS.md. See bench/README.md.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { launchChromium } from '../scripts/chromium.js';
import { generateEvents, writeNdjson } from './generate-stream.js';

const { values: opts } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '5' },
    quick: { type: 'boolean', default: false },
  },
});
const EVENTS = opts.quick ? 100_000 : Number(opts.events);
const ROUNDS = opts.quick ? 3 : Number(opts.rounds);
const here = import.meta.dirname;
const cli = join(here, '..', 'dist', 'cli', 'main.js');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const log = (...a) => console.log(...a);

mkdirSync(join(here, 'out'), { recursive: true });
// The same stream as bench/run.js (same seed and size), so the two share the file.
const file = join(here, 'out', `stream-${EVENTS}.ndjson`);
if (!existsSync(file)) {
  log(`generating ${fmt(EVENTS)} events → ${file}`);
  const events = [];
  for (const e of generateEvents({ seed: 42, signRequests: Math.ceil(EVENTS / 6) + 10 })) {
    events.push(e);
    if (events.length === EVENTS) break;
  }
  writeNdjson(file, events, { envelope: true, seed: 42 });
}
const page = join(here, 'out', `report-${EVENTS}.html`);

const timed = (args) => {
  const started = performance.now();
  const child = spawnSync(process.execPath, [cli, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ms = performance.now() - started;
  if (child.status !== 0)
    throw new Error(`${args.join(' ')}: exit ${child.status}: ${child.stderr}`);
  return ms;
};

// Shared machines are noisy: the section says how busy this one was.
const loadAtStart = loadavg()[0];
const replay = [];
const report = [];
for (let round = 0; round < ROUNDS; round += 1) {
  // Alternate which goes first, so neither always gets the warmer cache.
  const order = round % 2 === 0 ? ['replay', 'report'] : ['report', 'replay'];
  for (const which of order) {
    if (which === 'replay') replay.push(timed(['replay', file]));
    else report.push(timed(['report', file, '--out', page]));
  }
  log(
    `round ${round + 1}: replay ${replay.at(-1).toFixed(0)} ms, report ${report.at(-1).toFixed(0)} ms`,
  );
}
const ratio = median(report) / median(replay);
const pageBytes = statSync(page).size;

// --- opening the page in chromium -------------------------------------------
const browser = await launchChromium();
const opens = [];
for (let round = 0; round < ROUNDS; round += 1) {
  const tab = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const started = performance.now();
  await tab.goto(pathToFileURL(page).href, { waitUntil: 'load' });
  opens.push(performance.now() - started);
  await tab.close();
}
await browser.close();
const openMs = median(opens);
const loadAtEnd = loadavg()[0];

const section = `<!-- bench/report.js -->
## \`signfold report\` (bench/report.js)

Whole processes (\`node dist/cli/main.js …\`: start-up, read, fold, and for the report the recorder,
model, rendering and writing), ${fmt(EVENTS)} events, ${ROUNDS} rounds alternating, medians.
${availableParallelism()} cores, load average (1 min) ${loadAtStart.toFixed(1)} at the start and ${loadAtEnd.toFixed(1)} at the end:
the ratio is the figure to compare across runs.

| measure | median | target | met |
|---|---:|---:|:---:|
| \`signfold replay LOG\` | ${fmt(median(replay))} ms | | |
| \`signfold report LOG --out FILE\` | ${fmt(median(report))} ms | | |
| report / replay | ${ratio.toFixed(2)} | < 2 | ${ratio < 2 ? 'yes' : '**no**'} |
| page size | ${(pageBytes / 1e6).toFixed(3)} MB | < 1 MB | ${pageBytes < 1e6 ? 'yes' : '**no**'} |
| chromium: open the page (\`goto\` to \`load\`) | ${fmt(openMs)} ms | < 2,000 ms | ${openMs < 2000 ? 'yes' : '**no**'} |
`;
log(`\n${section}`);
if (!opts.quick) {
  const results = join(here, 'RESULTS.md');
  const before = existsSync(results) ? readFileSync(results, 'utf8') : '';
  const marker = '<!-- bench/report.js -->';
  const at = before.indexOf(marker);
  // Other benchmarks' sections (<!-- bench/… -->) after this one stay.
  const next = at === -1 ? -1 : before.indexOf('<!-- bench/', at + marker.length);
  const after = next === -1 ? '' : `\n${before.slice(next).trimEnd()}\n`;
  writeFileSync(
    results,
    `${(at === -1 ? before : before.slice(0, at)).trimEnd()}\n\n${section}${after}`,
  );
  log('wrote the report section of bench/RESULTS.md');
}
