// The read API of `signfold serve` under load (part of bench/serve.js; alone: `node bench/serve.js
// --only read`): a serve with --read-token-env on the example log (file, and PostgreSQL after
// `pg import` and `pg work --drain`), 500 signed deliveries/s alone, then the same 500/s together
// with 200 reads/s (70 % GET /api/sign-requests/ID of a known id, 30 % a page of 50 of the list
// with a random company or status), spread over 8 tokens so no token meets its rate limit. A fresh
// store and process per run; the p99 of each kind, medians over the rounds.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openLoop, summarize } from './serve-load.js';
import { CLI, startServe } from './serve-process.js';
import { deliveryHeaders, SECRET_ENV } from './serve-signature.js';

const EXAMPLE = new URL('../examples/events.ndjson', import.meta.url).pathname;
const TOKENS = Array.from({ length: 8 }, (_, i) => `bench-read-token-${i}-0123456789abcdef`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The sign request ids the example log names (the by-id reads ask for these). */
const exampleIds = () => {
  const ids = new Set();
  for (const line of readFileSync(EXAMPLE, 'utf8').split('\n')) {
    const id = /"signRequestId":(\d+)/.exec(line)?.[1];
    if (id !== undefined) ids.add(Number(id));
  }
  return [...ids];
};

/** A read of the mix: request `i`, by a token chosen in turn. */
const readRequest = (ids) => (i) => {
  const headers = { authorization: `Bearer ${TOKENS[i % TOKENS.length]}` };
  if (i % 10 < 7) {
    return { method: 'GET', path: `/api/sign-requests/${ids[(i * 7919) % ids.length]}`, headers };
  }
  const filter = [`company=${1 + (i % 4)}`, 'status=completed', 'status=sent', ''][i % 4];
  return { method: 'GET', path: `/api/sign-requests?limit=50&${filter}`, headers };
};

/**
 * One run of `store` with a fresh copy of the example: deliveries at `rate` for `seconds` after
 * `warmup` s, with reads at `readRate` alongside when it is above 0.
 */
const runOnce = async ({ store, dir, server, run, rate, readRate, seconds, warmup, secret }) => {
  let storeArgs;
  if (store === 'file') {
    const log = join(dir, `reads-${run}.ndjson`);
    copyFileSync(EXAMPLE, log);
    storeArgs = ['--log', log];
  } else {
    const url = await server.createDatabase(`reads_${run}`);
    for (const args of [['migrate'], ['import', EXAMPLE], ['work', '--drain']]) {
      execFileSync(process.execPath, [CLI, 'pg', ...args, '--database', url]);
    }
    storeArgs = ['--database', url];
  }
  const tokenArgs = TOKENS.flatMap((_, i) => ['--read-token-env', `BENCH_READ_${i}:1,2,3,4`]);
  const env = { [SECRET_ENV]: secret };
  TOKENS.forEach((token, i) => {
    env[`BENCH_READ_${i}`] = token;
  });
  const serve = await startServe([...storeArgs, ...tokenArgs], { env });
  const deliveries = (offset) => (i) => {
    const deliveryId = `reads-${offset + i}`;
    const body = JSON.stringify({
      type: 'sign-request-sent',
      companyId: 1 + (i % 4),
      signRequestId: 10_000_000 + offset + i,
      signRequestName: `Bench ${offset + i}`,
      templateId: 100,
      templateName: 'NDA',
      senderId: 20,
      senderName: 'Sam Sender',
      ownerId: 10,
      ownerName: 'Olive Owner',
    });
    return { body, deliveryId, headers: deliveryHeaders(body, { secret, deliveryId }) };
  };
  const ids = exampleIds();
  try {
    const warmCount = Math.round(rate * warmup);
    await Promise.all([
      openLoop({ url: serve.url, rate, count: warmCount, make: deliveries(0) }),
      readRate > 0
        ? openLoop({
            url: serve.base,
            rate: readRate,
            count: Math.round(readRate * warmup),
            make: readRequest(ids),
          })
        : Promise.resolve([]),
    ]);
    const [delivered, read] = await Promise.all([
      openLoop({
        url: serve.url,
        rate,
        count: Math.round(rate * seconds),
        seconds,
        make: deliveries(warmCount),
      }),
      readRate > 0
        ? openLoop({
            url: serve.base,
            rate: readRate,
            count: Math.round(readRate * seconds),
            seconds,
            make: readRequest(ids),
          })
        : Promise.resolve([]),
    ]);
    return { deliveries: summarize(delivered), reads: readRate > 0 ? summarize(read) : undefined };
  } finally {
    await serve.stop('SIGTERM');
  }
};

/**
 * Runs every configuration `rounds` times (deliveries alone and with reads back to back, in
 * alternating order) on both stores; returns one row per store and configuration.
 */
export const readBench = async ({ dir, server, rounds, seconds, warmup, secret, log }) => {
  const rows = new Map();
  let run = 0;
  for (let round = 0; round < rounds; round += 1) {
    for (const store of ['file', 'postgres']) {
      const pair = round % 2 === 0 ? [0, 200] : [200, 0];
      for (const readRate of pair) {
        run += 1;
        const s = await runOnce({
          store,
          dir,
          server,
          run,
          rate: 500,
          readRate,
          seconds,
          warmup,
          secret,
        });
        const key = `${store}:${readRate}`;
        if (!rows.has(key)) rows.set(key, { store, readRate, runs: [] });
        rows.get(key).runs.push(s);
        log(
          `reads round ${round + 1}: ${store}, 500 deliveries/s${readRate > 0 ? ` + ${readRate} reads/s` : ' alone'}: ` +
            `deliveries p99 ${s.deliveries.p99.toFixed(1)} ms ${JSON.stringify(s.deliveries.byStatus)}` +
            (s.reads === undefined
              ? ''
              : `, reads p50 ${s.reads.p50.toFixed(1)} ms, p99 ${s.reads.p99.toFixed(1)} ms ${JSON.stringify(s.reads.byStatus)}`),
        );
      }
    }
  }
  return [...rows.values()].map(({ store, readRate, runs }) => ({
    store,
    readRate,
    deliveryP99: median(runs.map((r) => r.deliveries.p99)),
    deliveryP99s: runs.map((r) => r.deliveries.p99),
    readP50: readRate > 0 ? median(runs.map((r) => r.reads.p50)) : undefined,
    readP99: readRate > 0 ? median(runs.map((r) => r.reads.p99)) : undefined,
    readP99s: readRate > 0 ? runs.map((r) => r.reads.p99) : [],
    notOk: runs.reduce(
      (n, r) => n + r.deliveries.errors + (r.reads === undefined ? 0 : r.reads.errors),
      0,
    ),
  }));
};

/** The read API's part of the serve section of bench/RESULTS.md. */
export const readSection = (rows, { rounds, seconds }) => {
  const ms = (n) => (n === undefined ? '–' : `${n.toFixed(1)} ms`);
  const row = (r) =>
    `| ${r.store === 'file' ? 'file log' : 'PostgreSQL'} | ${r.readRate > 0 ? `500 deliveries/s + ${r.readRate} reads/s` : '500 deliveries/s alone'} | ${ms(r.deliveryP99)} (${r.deliveryP99s.map((x) => x.toFixed(1)).join(', ')}) | ${ms(r.readP50)} | ${ms(r.readP99)}${r.readP99s.length > 0 ? ` (${r.readP99s.map((x) => x.toFixed(1)).join(', ')})` : ''} | ${r.notOk} |`;
  return `### The read API alongside deliveries

\`serve --read-token-env\` on the example log (3,917 events; PostgreSQL: imported and projected by
\`pg work --drain\` first, no worker during the run), 500 signed deliveries/s (sign-request-sent of
four companies) for ${seconds} s, alone and together with 200 reads/s: 70 % \`GET
/api/sign-requests/ID\` of a known id, 30 % a page of 50 of \`GET /api/sign-requests\` (a company, a
status or none), over 8 tokens (25 reads/s each, under the 50/s limit). A fresh store and process
per run; the two configurations back to back in alternating order; ${rounds} rounds, medians (each
round's p99 in brackets). "not 2xx" sums both loops over the rounds.

| store | load | deliveries p99 | reads p50 | reads p99 | not 2xx |
|---|---|---:|---:|---:|---:|
${rows.map(row).join('\n')}
`;
};
