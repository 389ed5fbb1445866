// `signfold serve` benchmarks (part of `npm run bench`; alone: `npm run build && node bench/serve.js`).
// 1. The cost of a request per scheme, in process: createWebhookHandler on a null log, insecure,
//    hmac, standard-webhooks (v1) and standard-webhooks Ed25519 (v1a) side by side, per body size,
//    rotating order, medians of rounds; and the HMAC alone.
// 2. `serve` as a real process (node dist/cli/main.js serve) on the file log (fsync, group commit)
//    and on a throwaway PostgreSQL (fsync and synchronous_commit on), under an open-loop load at
//    each --rates for --seconds after --warmup seconds at the same rate (not counted); signed, and
//    at the first rate also with --insecure-no-signature (back to back with signed, ABBA). Every
//    configuration runs once per round with a fresh log or database and a fresh process; medians of
//    --rounds; the CPU time of serve and of the load generator per request.
// 3. The read API (bench/serve-reads.js): 500 deliveries/s alone and with 200 reads/s alongside,
//    on the file log and on PostgreSQL; the p99 of both.
// Writes its section of bench/RESULTS.md (marked <!-- bench/serve.js -->) unless --no-write or
// --only verify|file|postgres|read (one part alone, printed only).
import { execFileSync } from 'node:child_process';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ok } from 'neverthrow';
import { createWebhookHandler } from '../dist/webhooks/index.js';
import { startPostgres } from '../scripts/throwaway-postgres.js';
import { cpuSecondsOf } from './process-cpu.js';
import { replaceResultsSection } from './results-section.js';
import { eventOfSize } from './serve-event.js';
import { openLoop, summarize } from './serve-load.js';
import { CLI, startServe } from './serve-process.js';
import { readBench, readSection } from './serve-reads.js';
import { deliveryHeaders, SECRET_ENV, standardWebhookHeaders } from './serve-signature.js';

const { values: opts } = parseArgs({
  options: {
    rates: { type: 'string', default: '500,2000' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '5' },
    only: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});
const RATES = opts.rates.split(',').map(Number);
const SECONDS = Number(opts.seconds);
const WARMUP = Number(opts.warmup);
const ROUNDS = Number(opts.rounds);
const SECRET = 'bench-secret';
const TARGET_P99_MS = 20;
const loadAtStart = loadavg().map((n) => n.toFixed(2));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const ms = (n) => (Number.isNaN(n) ? '–' : n.toFixed(1));
const log = (...a) => console.log(...a);

// --- 1. verification per request, in process ----------------------------------------------------

const SIZES = [512, 4_096, 65_536, 200_000];
const VERIFY_ROUNDS = 11;

/**
 * A log whose append keeps nothing and resolves at once: what remains is the handler's own work
 * (headers, body checks, JSON, verification), without a store's cost or memory in the figures.
 */
const nullLog = () => {
  let position = 0;
  return {
    append: async () => {
      position += 1;
      return ok({ kind: 'appended', position, receivedAt: '2026-01-01T00:00:00.000Z' });
    },
  };
};

/** µs per request of `handler` over `bodies` (each with its headers). */
const perRequest = async (handler, requests) => {
  const start = performance.now();
  for (const request of requests) {
    const answer = await handler(request);
    if (answer.status !== 200 && answer.status !== 202) throw new Error(`answer ${answer.status}`);
  }
  return ((performance.now() - start) * 1000) / requests.length;
};

/** The schemes measured side by side: how each signs, and the handler that verifies it. */
const SW_SECRET = `whsec_${Buffer.from(SECRET.padEnd(24, '.')).toString('base64')}`;
const ED25519 = generateKeyPairSync('ed25519');
const WHPK = `whpk_${Buffer.from(ED25519.publicKey.export({ format: 'jwk' }).x, 'base64url').toString('base64')}`;
const SCHEMES = [
  {
    name: 'insecure',
    headers: () => ({}),
    handler: () => createWebhookHandler({ log: nullLog(), secrets: [], insecureNoSignature: true }),
  },
  {
    name: 'hmac',
    headers: (body) => deliveryHeaders(body, { secret: SECRET }),
    handler: () => createWebhookHandler({ log: nullLog(), secrets: [SECRET] }),
  },
  {
    name: 'standard-webhooks',
    headers: (body, i) => standardWebhookHeaders(body, { secret: SW_SECRET, id: `msg_${i}` }),
    handler: () =>
      createWebhookHandler({
        log: nullLog(),
        secrets: [SW_SECRET],
        signature: 'standard-webhooks',
      }),
  },
  {
    name: 'standard-webhooks Ed25519',
    headers: (body, i) =>
      standardWebhookHeaders(body, { secret: ED25519.privateKey, id: `msg_${i}` }),
    handler: () =>
      createWebhookHandler({ log: nullLog(), secrets: [WHPK], signature: 'standard-webhooks' }),
  },
];

/**
 * µs per request of each scheme, per body size: the same bodies signed each scheme's way, the
 * schemes run one after the other in a rotating order each round, medians of the rounds.
 */
const verifyBench = async () => {
  const rows = [];
  for (const size of SIZES) {
    const n = Math.max(1_000, Math.min(20_000, Math.round(40_000_000 / size)));
    const bodies = Array.from({ length: n }, (_, i) => Buffer.from(eventOfSize(i + 1, size)));
    const requests = SCHEMES.map((scheme) =>
      bodies.map((body, i) => ({ method: 'POST', headers: scheme.headers(body, i), body })),
    );
    const times = SCHEMES.map(() => []);
    const hmacTimes = [];
    for (let round = 0; round < VERIFY_ROUNDS; round += 1) {
      for (let k = 0; k < SCHEMES.length; k += 1) {
        const index = (k + round) % SCHEMES.length;
        times[index].push(await perRequest(SCHEMES[index].handler(), requests[index]));
      }
      const start = performance.now();
      for (const body of bodies) createHmac('sha256', SECRET).update(body).digest();
      hmacTimes.push(((performance.now() - start) * 1000) / n);
    }
    const perScheme = Object.fromEntries(
      SCHEMES.map((scheme, i) => [scheme.name, median(times[i])]),
    );
    const row = {
      size: bodies[0].byteLength,
      unsigned: perScheme.insecure,
      signed: perScheme.hmac,
      standard: perScheme['standard-webhooks'],
      ed25519: perScheme['standard-webhooks Ed25519'],
      hmac: median(hmacTimes),
    };
    log(
      `verify ${fmt(row.size)} B: insecure ${row.unsigned.toFixed(1)} µs, hmac ${row.signed.toFixed(1)} µs, ` +
        `standard-webhooks ${row.standard.toFixed(1)} µs, Ed25519 ${row.ed25519.toFixed(1)} µs, HMAC alone ${row.hmac.toFixed(1)} µs`,
    );
    rows.push(row);
  }
  return rows;
};

// --- what one durable write costs on this disk, for what dominates the file log's latency -----

/** Latency of one ~400-byte append + fdatasync in the temp directory, `n` times: p50 and p99. */
const fsyncBench = (n = 300) => {
  const dir = mkdtempSync(join(tmpdir(), 'signfold-bench-fsync-'));
  const fd = openSync(join(dir, 'probe.ndjson'), 'a');
  const line = `${eventOfSize(1, 400)}\n`;
  const times = [];
  try {
    for (let i = 0; i < n; i += 1) {
      const start = performance.now();
      writeSync(fd, line);
      fdatasyncSync(fd);
      times.push(performance.now() - start);
    }
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
  const sorted = times.sort((a, b) => a - b);
  const figures = {
    p50: sorted[Math.floor(n / 2)],
    p99: sorted[Math.min(n - 1, Math.ceil(n * 0.99) - 1)],
  };
  log(`append + fdatasync: p50 ${ms(figures.p50)} ms, p99 ${ms(figures.p99)} ms`);
  return figures;
};

// --- 2. serve as a process under an open loop ---------------------------------------------------

/**
 * The configurations measured once per round. Signed and unsigned at the first rate run back to
 * back, in alternating order (ABBA over the rounds), so the comparison sees the same machine.
 */
const configurations = (round) => {
  const list = [];
  for (const store of ['file', 'postgres']) {
    const pair = [
      { store, rate: RATES[0], signed: true },
      { store, rate: RATES[0], signed: false },
    ];
    list.push(...(round % 2 === 0 ? pair : pair.reverse()));
  }
  for (const rate of RATES.slice(1)) {
    for (const store of ['file', 'postgres']) list.push({ store, rate, signed: true });
  }
  return list.filter((c) => opts.only === undefined || c.store === opts.only);
};
const labelOf = (c) =>
  `${c.store === 'file' ? 'file log' : 'PostgreSQL'}, ${c.signed ? 'signed' : '--insecure-no-signature'}, ${fmt(c.rate)}/s`;

/** One run: a fresh store and process, warm-up, then the measured open loop; SIGTERM at the end. */
const runOnce = async (config, dir, server, run) => {
  let storeArgs;
  if (config.store === 'file') {
    storeArgs = ['--log', join(dir, `serve-${run}.ndjson`)];
  } else {
    const url = await server.createDatabase(`serve_${run}`);
    execFileSync(process.execPath, [CLI, 'pg', 'migrate', '--database', url]);
    storeArgs = ['--database', url];
  }
  const securityArgs = config.signed ? [] : ['--insecure-no-signature'];
  const serve = await startServe([...storeArgs, ...securityArgs], {
    env: config.signed ? { [SECRET_ENV]: SECRET } : { [SECRET_ENV]: '' },
  });
  const make = (offset) => (i) => {
    const body = eventOfSize(offset + i + 1, 400);
    const deliveryId = `bench-${offset + i}`;
    const secret = config.signed ? SECRET : undefined;
    return { body, deliveryId, headers: deliveryHeaders(body, { secret, deliveryId }) };
  };
  try {
    const warmCount = Math.round(config.rate * WARMUP);
    await openLoop({ url: serve.url, rate: config.rate, count: warmCount, make: make(0) });
    const serveCpu = cpuSecondsOf(serve.child.pid);
    const ownCpu = process.cpuUsage();
    const results = await openLoop({
      url: serve.url,
      rate: config.rate,
      count: Math.round(config.rate * SECONDS),
      seconds: SECONDS,
      timeoutMs: 10_000,
      make: make(warmCount),
    });
    const own = process.cpuUsage(ownCpu);
    const summary = summarize(results);
    return {
      ...summary,
      serveCpuUs: ((cpuSecondsOf(serve.child.pid) - serveCpu) * 1e6) / summary.sent,
      loadCpuUs: (own.user + own.system) / summary.sent,
      loadAverage: loadavg()[0],
    };
  } finally {
    const ended = await serve.stop('SIGTERM');
    if (ended.code !== 0) log(`  note: serve exited with ${ended.code ?? ended.signal}`);
  }
};

const loadBench = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'signfold-bench-serve-'));
  const server = await startPostgres();
  const figures = new Map(configurations(0).map((c) => [labelOf(c), { config: c, runs: [] }]));
  try {
    let run = 0;
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const config of configurations(round - 1)) {
        run += 1;
        const s = await runOnce(config, dir, server, run);
        figures.get(labelOf(config)).runs.push(s);
        log(
          `round ${round}: ${labelOf(config)}: ${fmt(s.perSecond)}/s achieved, ${s.ok}/${s.sent} 2xx, ` +
            `p50 ${ms(s.p50)} ms, p99 ${ms(s.p99)} ms (from schedule ${ms(s.p99FromSchedule)}), max ${ms(s.max)} ms, ` +
            `CPU/request serve ${fmt(s.serveCpuUs)} µs, load generator ${fmt(s.loadCpuUs)} µs, ` +
            `answers ${JSON.stringify(s.byStatus)} ${JSON.stringify(s.byError)}; load ${loadavg()[0].toFixed(1)}`,
        );
      }
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return [...figures.values()].map(({ config, runs }) => ({
    config,
    perSecond: median(runs.map((r) => r.perSecond)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    p99Range: [Math.min(...runs.map((r) => r.p99)), Math.max(...runs.map((r) => r.p99))],
    p99FromSchedule: median(runs.map((r) => r.p99FromSchedule)),
    max: Math.max(...runs.map((r) => r.max)),
    rounds: runs.map((r) => ({ p99: r.p99, loadAverage: r.loadAverage })),
    serveCpuUs: median(runs.map((r) => r.serveCpuUs)),
    loadCpuUs: median(runs.map((r) => r.loadCpuUs)),
    sent: runs.reduce((n, r) => n + r.sent, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
  }));
};

// --- the section of bench/RESULTS.md ------------------------------------------------------------

const section = (verify, load, fsync, reads) => {
  const loadRow = (f) => {
    const target = f.config.rate === 500 && f.config.signed ? `< ${TARGET_P99_MS} ms` : '';
    const met = target === '' ? '' : f.p99 < TARGET_P99_MS ? 'yes' : '**no**';
    return `| ${labelOf(f.config)} | ${fmt(f.perSecond)} | ${ms(f.p50)} ms | ${ms(f.p99)} ms (${ms(f.p99Range[0])}–${ms(f.p99Range[1])}) | ${ms(f.p99FromSchedule)} ms | ${ms(f.max)} ms | ${fmt(f.errors)} of ${fmt(f.sent)} | ${fmt(f.serveCpuUs)} µs | ${fmt(f.loadCpuUs)} µs | ${target} | ${met} |`;
  };
  const roundRow = (f) =>
    `| ${labelOf(f.config)} | ${f.rounds.map((r) => `${ms(r.p99)} (${r.loadAverage.toFixed(1)})`).join(' | ')} |`;
  const roundHeads = load[0]?.rounds.map((_, i) => `round ${i + 1}`) ?? [];
  const verifyRow = (r) =>
    `| ${fmt(r.size)} B | ${r.unsigned.toFixed(1)} µs | ${r.signed.toFixed(1)} µs | ${r.standard.toFixed(1)} µs | ${r.ed25519.toFixed(1)} µs | ${r.hmac.toFixed(1)} µs |`;
  return `<!-- bench/serve.js -->
## \`signfold serve\` (bench/serve.js)

Generated by \`node bench/serve.js\` (part of \`npm run bench\`): \`node dist/cli/main.js serve\` as a
real process on 127.0.0.1, on the file log (\`fsync\` before each answer, concurrent appends committed
in groups) and on a throwaway PostgreSQL 15 (default settings: fsync and \`synchronous_commit\` on),
under an open-loop load (requests sent on a fixed schedule whatever the answers, keep-alive
connections), ${SECONDS} s measured after a ${WARMUP} s warm-up at the same rate, ~400-byte signed events
with distinct delivery ids, a fresh process and store per run; ${ROUNDS} rounds, every configuration once
per round; medians (p99: median and range over the rounds). The load generator,
\`serve\` and PostgreSQL share the machine's cores.

- date: ${new Date().toISOString().slice(0, 10)}
- machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB
- load average (1, 5, 15 min) at start / end: ${loadAtStart.join(' ')} / ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}
- Node ${process.version}

| configuration | achieved 2xx/s | p50 | p99 (range) | p99 from schedule | max | not 2xx | serve CPU / request | load generator CPU / request | target p99 | met |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|
${load.map(loadRow).join('\n')}

One durable write on this machine's disk (the temp directory, where the file log lives): an append of
a ~400-byte line and \`fdatasync\`, ${fsync === undefined ? 'not measured' : `p50 ${ms(fsync.p50)} ms, p99 ${ms(fsync.p99)} ms`} (300 in a row, alone).

Latency is from the send of a request to the end of its answer; "from schedule" counts from the
instant the open loop had scheduled it, so it also shows the load generator falling behind.
"not 2xx": timeouts (10 s), refused connections and non-2xx answers, summed over the rounds. CPU per
request: user + system time of the \`serve\` process (from /proc) and of the load generator over the
measured window, divided by the requests sent (PostgreSQL's own processes are not counted). At the
first rate, signed and unsigned run back to back in alternating order.

The p99 of each round, in ms, with the 1-minute load average at the end of the run in brackets (the
machine is shared: the figures move with the load of other processes):

| configuration | ${roundHeads.join(' | ')} |
|---|${roundHeads.map(() => '---:').join('|')}|
${load.map(roundRow).join('\n')}

Cost of a request per scheme, in process (\`createWebhookHandler\` on a log whose append keeps
nothing, so the figures are the handler's own work): \`insecureNoSignature\`; \`hmac\`, the default
scheme (hex HMAC-SHA256 of the raw body); \`standard-webhooks\` with a \`whsec_\` secret (\`v1\`,
HMAC-SHA256 of \`id.timestamp.body\`, base64) and with an Ed25519 \`whpk_\` public key (\`v1a\`). The
same bodies, signed each scheme's way, the schemes in a rotating order each round; medians of
${VERIFY_ROUNDS} runs of 1,000 to 20,000 requests; the HMAC alone, \`createHmac\` over the body, for
reference. The cost of verification is a column minus \`insecure\`:

| body | insecure | hmac | standard-webhooks | standard-webhooks Ed25519 | HMAC alone |
|---:|---:|---:|---:|---:|---:|
${verify.map(verifyRow).join('\n')}
${reads.length === 0 ? '' : `\n${readSection(reads, { rounds: ROUNDS, seconds: SECONDS })}`}`;
};

/** The read API alongside deliveries (bench/serve-reads.js), on its own throwaway server. */
const readsBench = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'signfold-bench-reads-'));
  const server = await startPostgres();
  try {
    return await readBench({
      dir,
      server,
      rounds: ROUNDS,
      seconds: SECONDS,
      warmup: WARMUP,
      secret: SECRET,
      log,
    });
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

const verify = opts.only === undefined || opts.only === 'verify' ? await verifyBench() : [];
const fsync = opts.only === 'verify' || opts.only === 'read' ? undefined : fsyncBench();
const load = opts.only === 'verify' || opts.only === 'read' ? [] : await loadBench();
const reads = opts.only === undefined || opts.only === 'read' ? await readsBench() : [];
const text = section(verify, load, fsync, reads);
log(`\n${text}`);
if (!opts['no-write'] && opts.only === undefined) {
  replaceResultsSection('<!-- bench/serve.js -->', text);
  log('wrote the serve section of bench/RESULTS.md');
}
