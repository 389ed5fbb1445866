// Forgetting a person on a file log (npm run bench; alone: npm run bench:forget): `signfold forget
// LOG --user ID` of one sender on a 1M-event envelope log with a snapshot beside it, as a whole
// process, next to `signfold replay LOG` of the same log (what reading and folding it costs) and a
// plain copy of the file (what writing it costs). Every round starts from a fresh copy of the log
// and its snapshot; the order alternates. Medians with their range. Writes its section of
// bench/RESULTS.md unless --no-write.
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { firstEvents, writeNdjson } from './generate-stream.js';
import { replaceResultsSection } from './results-section.js';

const { values: opts } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '5' },
    'no-write': { type: 'boolean', default: false },
  },
});
const EVENTS = Number(opts.events);
const ROUNDS = Number(opts.rounds);
const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli/main.js');
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
const range = (xs) => `${fmt(sorted(xs)[0])}–${fmt(sorted(xs).at(-1))}`;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

const timed = (args) => {
  const started = performance.now();
  const out = execFileSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    // forget exits 1 when another file still holds the name: not a failure here.
  });
  return [performance.now() - started, out];
};

const dir = mkdtempSync(join(tmpdir(), 'signfold-bench-forget-'));
try {
  const source = join(dir, 'source.ndjson');
  const { lines } = writeNdjson(source, firstEvents(EVENTS, 8), { envelope: true });
  const head = Buffer.alloc(4096);
  const fd = openSync(source, 'r');
  readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  const firstEvent = JSON.parse(head.toString('utf8').split('\n')[0]).event;
  const user = firstEvent.senderId ?? firstEvent.ownerId;
  execFileSync(process.execPath, [
    CLI,
    'replay',
    source,
    '--snapshot',
    join(dir, 'source.snapshot'),
  ]);
  const bytes = statSync(source).size;
  const loadBefore = load();
  console.log(
    `log: ${fmt(lines)} events, ${fmt(bytes / 2 ** 20)} MiB; forgetting user ${user}; load ${loadBefore}`,
  );

  const forgets = [];
  const bare = [];
  const replays = [];
  const copies = [];
  let changed;
  for (let round = 0; round < ROUNDS; round += 1) {
    const work = mkdtempSync(join(dir, 'round-'));
    const log = join(work, 'events.ndjson');
    const copyStarted = performance.now();
    copyFileSync(source, log);
    copies.push(performance.now() - copyStarted);
    copyFileSync(join(dir, 'source.snapshot'), join(work, 'events.snapshot'));
    const order = round % 2 === 0 ? ['forget', 'bare', 'replay'] : ['replay', 'bare', 'forget'];
    for (const which of order) {
      if (which === 'bare') {
        // The same forget on another copy with no snapshot beside it.
        const alone = mkdtempSync(join(dir, 'alone-'));
        copyFileSync(source, join(alone, 'events.ndjson'));
        bare.push(timed(['forget', join(alone, 'events.ndjson'), '--user', String(user)])[0]);
        rmSync(alone, { recursive: true, force: true });
      } else if (which === 'replay') {
        replays.push(timed(['replay', log])[0]);
      } else {
        const [ms, out] = timed(['forget', log, '--user', String(user), '--json']);
        const report = JSON.parse(out);
        changed = report.counts;
        forgets.push(ms);
      }
    }
    console.log(
      `round ${round + 1}: forget ${fmt(forgets.at(-1))} ms, without a snapshot ${fmt(bare.at(-1))} ms, replay ${fmt(replays.at(-1))} ms, copy ${fmt(copies.at(-1))} ms (${JSON.stringify(changed)})`,
    );
    rmSync(work, { recursive: true, force: true });
  }
  const ratios = forgets.map((ms, i) => ms / replays[i]);
  const section = `<!-- bench/forget.js -->
## Forgetting a person on a file log (bench/forget.js)

${fmt(lines)} generated events (seed 8, envelope NDJSON, ${fmt(bytes / 2 ** 20)} MiB) with a snapshot beside it; \`signfold forget LOG --user ${user}\` (one sender: ${changed?.['log records'] ?? 0} records rewritten, ${changed?.snapshots ?? 0} snapshot folded again) as a whole process, next to \`signfold replay LOG\` of the same log, each round on a fresh copy; ${ROUNDS} rounds, the order alternating. Load average at start ${loadBefore} (2 cores, shared).

| measure | median | range |
|---|---:|---:|
| \`forget\` (two passes over the log, rewrite, snapshot folded twice, directory search) | ${fmt(median(forgets))} ms | ${range(forgets)} ms |
| \`forget\` with no snapshot beside the log | ${fmt(median(bare))} ms | ${range(bare)} ms |
| \`replay\` | ${fmt(median(replays))} ms | ${range(replays)} ms |
| copying the log (the floor of any rewrite) | ${fmt(median(copies))} ms | ${range(copies)} ms |
| forget ÷ replay, per round | ${median(ratios).toFixed(2)} | ${sorted(ratios)[0].toFixed(2)}–${sorted(ratios).at(-1).toFixed(2)} |

A snapshot beside the log costs two folds: proving it is a snapshot of this log means folding the old log to its checkpoint, and the new one is folded again to write it. Without one, \`forget\` is two passes that parse only the lines holding the ids' digits (or a name's bytes), and one write.
`;
  console.log(section);
  if (!opts['no-write']) replaceResultsSection('bench/forget.js', section);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
