// An open-loop HTTP load generator for `signfold serve` (bench/serve.js and the process-level tests
// in test/webhooks/serve-proof-*.test.ts). Requests are scheduled at a fixed rate whatever the
// server answers (a closed loop that waits for each answer would slow down with the server and hide
// its stalls), over keep-alive connections, bounded by a count and a time, each with its own time
// limit so a paused or dead server ends the run instead of hanging it.
import { Agent, request } from 'node:http';

/**
 * @typedef {{ body?: Uint8Array | string, headers?: Record<string, string>, deliveryId?: string, method?: string, path?: string }} LoadRequest
 * @typedef {{
 *   index: number, deliveryId: string | undefined, status: number, error: string | undefined,
 *   scheduledAt: number, sentAt: number, ms: number, fromScheduleMs: number, body: string
 * }} LoadResult
 */

/** Milliseconds since the time origin of this process, with sub-millisecond precision. */
const now = () => performance.now();

/**
 * Sends one request and resolves (never rejects) with what happened: the status, or status 0 and
 * the error (`timeout` when `timeoutMs` passed first, counted from the moment it was sent).
 */
const sendOne = (target, agent, item, timeoutMs) =>
  new Promise((resolve) => {
    const sentAt = now();
    let settled = false;
    const finish = (status, error, body = '') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, error, sentAt, ms: now() - sentAt, body });
    };
    // A GET (the read API) has no body; a delivery is a POST to the loop's URL.
    const body =
      item.body === undefined
        ? Buffer.alloc(0)
        : typeof item.body === 'string'
          ? Buffer.from(item.body)
          : item.body;
    const headers = {
      'content-type': 'application/json',
      'content-length': String(body.byteLength),
      ...item.headers,
    };
    const req = request(
      {
        host: target.host,
        port: target.port,
        path: item.path ?? target.path,
        method: item.method ?? 'POST',
        agent,
        headers,
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () =>
          finish(res.statusCode ?? 0, undefined, Buffer.concat(chunks).toString('utf8')),
        );
        res.on('error', (cause) => finish(0, cause.message));
      },
    );
    const timer = setTimeout(() => {
      finish(0, 'timeout');
      req.destroy();
    }, timeoutMs);
    req.on('error', (cause) => finish(0, cause.code ?? cause.message));
    req.end(body);
  });

/**
 * Runs an open loop: request `i` (0-based) is sent at `start + i / rate` seconds, whatever
 * happened to the earlier ones, until `count` were sent or `seconds` passed; then waits for every
 * answer (each bounded by `timeoutMs`). When this process falls behind (a busy event loop), the
 * requests that are due go out at once: `fromScheduleMs` counts from the scheduled instant, so a
 * late sender shows in the figures instead of being hidden.
 *
 * `make(i)` builds request `i`. `onResult` sees each result as it arrives (to stop or signal the
 * server mid-run). Resolves with one result per request sent, in send order.
 *
 * @param {{
 *   url: string, rate: number, count: number, seconds?: number, timeoutMs?: number,
 *   maxSockets?: number, make: (index: number) => LoadRequest,
 *   onResult?: (result: LoadResult) => void, signal?: AbortSignal
 * }} options
 * @returns {Promise<LoadResult[]>}
 */
export const openLoop = async ({
  url,
  rate,
  count,
  seconds = Number.POSITIVE_INFINITY,
  timeoutMs = 10_000,
  maxSockets = 256,
  make,
  onResult,
  signal,
}) => {
  const parsed = new URL(url);
  const target = { host: parsed.hostname, port: Number(parsed.port), path: parsed.pathname };
  const agent = new Agent({ keepAlive: true, maxSockets });
  const interval = 1000 / rate;
  const start = now();
  const deadline = start + seconds * 1000;
  const pending = [];
  try {
    let index = 0;
    while (index < count && signal?.aborted !== true) {
      const scheduledAt = start + index * interval;
      if (scheduledAt >= deadline) break;
      const wait = scheduledAt - now();
      if (wait > 1) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        continue;
      }
      const item = make(index);
      const at = index;
      const sent = sendOne(target, agent, item, timeoutMs).then((outcome) => {
        const result = {
          index: at,
          deliveryId: item.deliveryId,
          scheduledAt,
          fromScheduleMs: outcome.sentAt + outcome.ms - scheduledAt,
          ...outcome,
        };
        onResult?.(result);
        return result;
      });
      pending.push(sent);
      index += 1;
    }
    return await Promise.all(pending);
  } finally {
    agent.destroy();
  }
};

/** The `p`th percentile (0–100) of `values` by the nearest-rank rule; NaN when empty. */
export const percentile = (values, p) => {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
};

/**
 * The figures of one run: requests sent, answers per status (0 = no answer) and errors per kind
 * (`timeout`, `ECONNRESET`…), achieved answers per
 * second over the run, p50/p99/max of the 2xx latencies from send and from schedule.
 * @param {readonly LoadResult[]} results
 */
export const summarize = (results) => {
  const byStatus = {};
  const byError = {};
  for (const r of results) {
    byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    if (r.error !== undefined) byError[r.error] = (byError[r.error] ?? 0) + 1;
  }
  const ok = results.filter((r) => r.status >= 200 && r.status < 300);
  const first = results.reduce((min, r) => Math.min(min, r.scheduledAt), Number.POSITIVE_INFINITY);
  const last = results.reduce((max, r) => Math.max(max, r.sentAt + r.ms), 0);
  const ms = ok.map((r) => r.ms);
  const late = ok.map((r) => r.fromScheduleMs);
  return {
    sent: results.length,
    ok: ok.length,
    errors: results.length - ok.length,
    byStatus,
    byError,
    perSecond: results.length === 0 ? 0 : (ok.length * 1000) / (last - first),
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    max: ms.length === 0 ? Number.NaN : ms.reduce((max, value) => Math.max(max, value), 0),
    p99FromSchedule: percentile(late, 99),
  };
};
