// Observation records on replay (npm run bench): what a log pays for the records `signfold
// reconcile` appends. The same generated log is replayed plain and with one observation record
// per 100 events (each about a request of the log, as the API would report it once it is over);
// pairs of runs alternate; medians, and the median of the per-pair ratios. A log without any pays
// nothing by construction: the projector looks for an observation only once a record has failed
// to decode as an event. Writes its section of bench/RESULTS.md unless --no-write.
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
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
const { createProjector, decodeSignRequest, observationRecord } = await import(
  join(ROOT, 'dist/index.js')
);
const { readFileEventLog } = await import(join(ROOT, 'dist/store/index.js'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');

const dir = join(tmpdir(), `signfold-bench-observations-${process.pid}`);
mkdirSync(dir, { recursive: true });
const plainLog = join(dir, 'plain.ndjson');
const observedLog = join(dir, 'observed.ndjson');
const events = [...generateEvents({ seed: 11, signRequests: Number(opts.requests) })];
writeNdjson(plainLog, events, { envelope: true, seed: 3 });
writeNdjson(observedLog, events, { envelope: true, seed: 3 });
const load = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');

const replay = async (log) => {
  const started = performance.now();
  const projector = createProjector({ audit: false });
  (await projector.replay({ read: (o) => readFileEventLog(log, o) }))._unsafeUnwrap();
  return { ms: performance.now() - started, projector };
};

// One record per 100 events: each states what the projection holds of a request, as the API would.
const { projector } = await replay(plainLog);
const requests = [...projector.state().signRequests.values()].filter((r) => !r.deleted);
const count = Math.floor(events.length / 100);
let position = events.length + 1_000_000;
const lines = [];
for (let i = 0; i < count; i += 1) {
  const request = requests[i % requests.length];
  const participants = [...(projector.state().participants.get(request.id)?.values() ?? [])];
  const fetched = decodeSignRequest({
    id: request.id,
    name: request.name,
    status: request.status,
    formType: 'Form',
    savedTime: '2026-01-01 00:00:00',
    participants: participants.map((p) => ({ id: p.id, name: p.name, status: p.status })),
  })._unsafeUnwrap();
  position += 1;
  lines.push(
    JSON.stringify({
      position,
      receivedAt: '2026-01-01T00:00:00.000Z',
      event: observationRecord(fetched, { fetchedAt: new Date('2026-01-01T00:00:00Z') }),
    }),
  );
}
appendFileSync(observedLog, `${lines.join('\n')}\n`);

const plain = [];
const observed = [];
for (let round = 0; round < Number(opts.rounds); round += 1) {
  if (round % 2 === 0) {
    plain.push((await replay(plainLog)).ms);
    observed.push((await replay(observedLog)).ms);
  } else {
    observed.push((await replay(observedLog)).ms);
    plain.push((await replay(plainLog)).ms);
  }
}
rmSync(dir, { recursive: true, force: true });

const plainMs = median(plain);
const observedMs = median(observed);
const perRecordUs = ((observedMs - plainMs) * 1000) / count;
const pairRatios = plain.map((ms, i) => observed[i] / ms);
const pairedRatio = median(pairRatios);
// The range, so a reader sees how far one pair may stray from the median on this host.
const pairRange = `${Math.min(...pairRatios).toFixed(3)}–${Math.max(...pairRatios).toFixed(3)}`;
const section = `<!-- bench/observations.js -->
## Observation records on replay (bench/observations.js)

${fmt(events.length)} generated events (seed 11, ${fmt(Number(opts.requests))} sign requests, envelope NDJSON), replayed plain and with ${fmt(count)} observation records appended (1 per 100 events, each about a request of the log); load average at start ${load} (2 cores, shared). ${opts.rounds} pairs of runs, the order alternating; medians, and the median of the per-pair ratios. A log without observation records pays nothing for them: the projector looks for one only after a record failed to decode as an event.

| measure | median |
|---|---:|
| plain replay | ${fmt(plainMs)} ms (${fmt(events.length / (plainMs / 1000))} records/s) |
| with 1 % observation records | ${fmt(observedMs)} ms (${fmt((events.length + count) / (observedMs / 1000))} records/s) |
| ratio, per pair: median (range) | ${pairedRatio.toFixed(3)} (${pairRange}) |
| cost of one observation record (decode, compare, apply) | ${perRecordUs.toFixed(1)} µs |
`;
console.log(section);
if (!opts['no-write']) replaceResultsSection('<!-- bench/observations.js -->', section);
