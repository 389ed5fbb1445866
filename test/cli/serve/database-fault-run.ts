/**
 * One run of `signfold serve --database` through the TCP fault proxy, under a steady open loop of
 * signed deliveries, with a fault applied and healed mid-way (issue 29, the serve side). It
 * records every answer and every `/readyz` answer with their instants, measures the recovery, has
 * the "sender" deliver again everything that was not acknowledged, and reads what was stored, for
 * the tests to assert on.
 */
import { type LoadResult, openLoop } from '../../../bench/serve-load.js';
import type { FaultProxy } from '../../support/fault-proxy.js';
import { startFaultProxy } from '../../support/fault-proxy.js';
import type { ThrowawayPostgres } from '../../support/postgres-server.js';
import { SECRET_ENV_VARS, signedDelivery } from '../../webhooks/fixtures/serve-deliveries.js';
import { freshDatabase } from '../../webhooks/fixtures/serve-under-load.js';
import { type ServeExit, startServe } from './serve-process.js';

/** A `/readyz` answer: when it was asked and answered, and its status (0: none in 5 s). */
export interface ReadyProbe {
  readonly at: number;
  readonly answeredAt: number;
  readonly status: number;
}

/** A delivery sent by hand during the fault, to see its headers. */
export interface ManualDelivery {
  readonly index: number;
  readonly status: number;
  readonly retryAfter: string | null;
  readonly ms: number;
}

/** What the fault function may act on. */
export interface FaultContext {
  readonly proxy: FaultProxy;
  readonly db: ThrowawayPostgres;
  /** A pool straight to the database (not through the proxy). */
  readonly direct: { query(text: string, values?: unknown[]): Promise<unknown> };
  readonly name: string;
  /** Sends one delivery now and records it with its `Retry-After`. */
  readonly deliverByHand: () => Promise<ManualDelivery>;
}

/** How to run. */
export interface FaultRunOptions {
  /** Names the database and the delivery ids (lower-case letters, digits, _). */
  readonly name: string;
  readonly db: ThrowawayPostgres;
  /** `--append-timeout`, seconds (undefined: serve's default). */
  readonly appendTimeoutSeconds?: number;
  /** `--connect-timeout`, seconds (undefined: serve's default). */
  readonly connectTimeoutSeconds?: number;
  /** Deliveries per second of the open loop. */
  readonly rate: number;
  /**
   * Applies the fault, holds it, heals it; resolves with the instant the fault took effect when
   * that is later than the call (pg_ctl stop takes a while), else nothing.
   */
  readonly fault: (context: FaultContext) => Promise<number | undefined>;
}

/** What a run saw. */
export interface FaultRun {
  readonly results: readonly LoadResult[];
  readonly manual: readonly ManualDelivery[];
  readonly probes: readonly ReadyProbe[];
  readonly faultAt: number;
  readonly healedAt: number;
  /** From the heal to the end of the first 200 of a delivery sent after it. */
  readonly storedAgainMs: number;
  /** From the heal to the first `/readyz` 200 asked after it. */
  readonly readyAgainMs: number;
  /** `signfold_webhook_deliveries_total{outcome="unavailable"}` and the timeouts, after the loop. */
  readonly unavailableCounted: number;
  readonly timeoutsCounted: number;
  /** Delivery ids acknowledged (200) by the load and the manual deliveries, before the retries. */
  readonly acknowledged: ReadonlySet<string>;
  /** Every delivery id sent. */
  readonly sent: ReadonlySet<string>;
  /** Ids stored right after the load (before the retries). */
  readonly storedBeforeRetry: ReadonlyMap<string, number>;
  /** Ids stored in the end, with how many times. */
  readonly stored: ReadonlyMap<string, number>;
  /** Retry rounds it took for every delivery to be acknowledged. */
  readonly retryRounds: number;
  readonly exit: ServeExit;
  /** How long serve took to answer each delivery, as its own log lines say (ms). */
  readonly answeredWithinMs: readonly number[];
  /** From SIGTERM to the exit. */
  readonly stopMs: number;
  readonly stderr: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 100 ms until it holds; throws after `ms` with `what`. */
export const waitFor = async (check: () => boolean, ms: number, what: string): Promise<void> => {
  const until = performance.now() + ms;
  while (!check()) {
    if (performance.now() > until) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(100);
  }
};

const get = async (url: string, ms: number): Promise<Response | undefined> => {
  try {
    return await fetch(url, { signal: AbortSignal.timeout(ms) });
  } catch {
    return undefined;
  }
};

const storedIds = async (direct: FaultContext['direct']): Promise<Map<string, number>> => {
  const { rows } = (await direct.query(
    'SELECT delivery_id, count(*)::int AS n FROM signfold.events GROUP BY delivery_id',
  )) as { rows: { delivery_id: string | null; n: number }[] };
  return new Map(rows.map((row) => [row.delivery_id ?? '', row.n]));
};

const metric = (text: string, pattern: RegExp): number => {
  const found = pattern.exec(text);
  return found === null ? Number.NaN : Number(found[1]);
};

/** Runs the scenario the module comment describes; the caller asserts on what it returns. */
export const runFault = async (options: FaultRunOptions): Promise<FaultRun> => {
  const { db, name } = options;
  const database = await freshDatabase(db, name);
  const proxy = await startFaultProxy(db.server.port);
  const viaProxy = database.url.replace(`:${db.server.port}/`, `:${proxy.port}/`);
  const args = ['--database', viaProxy];
  if (options.appendTimeoutSeconds !== undefined) {
    args.push('--append-timeout', String(options.appendTimeoutSeconds));
  }
  if (options.connectTimeoutSeconds !== undefined) {
    args.push('--connect-timeout', String(options.connectTimeoutSeconds));
  }
  const serve = await startServe(args, { ...process.env, ...SECRET_ENV_VARS });
  const url = `${serve.url}/webhooks`;
  try {
    const results: LoadResult[] = [];
    const manual: ManualDelivery[] = [];
    const probes: ReadyProbe[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        const at = performance.now();
        const answer = await get(`${serve.url}/readyz`, 5000);
        await answer?.text();
        probes.push({ at, answeredAt: performance.now(), status: answer?.status ?? 0 });
        await sleep(200);
      }
    })();
    const controller = new AbortController();
    const maxCount = 2000;
    const loop = openLoop({
      url,
      rate: options.rate,
      count: maxCount,
      timeoutMs: 30_000,
      signal: controller.signal,
      make: (index) => signedDelivery(name, index),
      onResult: (result) => results.push(result),
    });
    let manualIndex = maxCount;
    const deliverByHand = async (): Promise<ManualDelivery> => {
      const index = manualIndex;
      manualIndex += 1;
      const delivery = signedDelivery(name, index);
      const started = performance.now();
      const send = () =>
        fetch(url, {
          method: 'POST',
          body: delivery.body,
          headers: { 'content-type': 'application/json', ...delivery.headers },
          signal: AbortSignal.timeout(30_000),
        });
      // A kept-alive connection that serve closed while the test's loop was blocked (pg_ctl runs
      // synchronously) fails before the request is sent: once more, on a new connection.
      const answer = await send().catch(send);
      await answer.text();
      const done = {
        index,
        status: answer.status,
        retryAfter: answer.headers.get('retry-after'),
        ms: performance.now() - started,
      };
      manual.push(done);
      return done;
    };
    await waitFor(
      () => results.filter((r) => r.status === 200).length >= 20,
      20_000,
      '20 deliveries stored before the fault',
    );
    const faultCalledAt = performance.now();
    const tookEffectAt = await options.fault({
      proxy,
      db,
      direct: database.pool,
      name,
      deliverByHand,
    });
    const faultAt = tookEffectAt ?? faultCalledAt;
    const healedAt = performance.now();
    await waitFor(
      () => results.some((r) => r.status === 200 && r.sentAt > healedAt),
      30_000,
      'a delivery sent after the fault stored',
    );
    const storedAgain = results.find((r) => r.status === 200 && r.sentAt > healedAt);
    await waitFor(
      () => probes.some((p) => p.status === 200 && p.at > healedAt),
      30_000,
      '/readyz 200 after the fault',
    );
    const readyAgain = probes.find((p) => p.status === 200 && p.at > healedAt);
    controller.abort();
    await loop;
    probing = false;
    await prober;
    const metrics = await (await fetch(`${serve.url}/metrics`)).text();
    const sentIndexes = new Map<string, number>();
    const acknowledged = new Set<string>();
    for (const r of [
      ...results,
      ...manual.map((m) => ({ ...m, deliveryId: `${name}-${m.index}` })),
    ]) {
      const id = r.deliveryId ?? '';
      sentIndexes.set(id, r.index);
      if (r.status === 200) acknowledged.add(id);
    }
    const storedBeforeRetry = await storedIds(database.pool);
    // The senders deliver again whatever was not acknowledged, until it is.
    const retried = new Set(acknowledged);
    let retryRounds = 0;
    while (retried.size < sentIndexes.size && retryRounds < 8) {
      retryRounds += 1;
      const missing = [...sentIndexes].filter(([id]) => !retried.has(id)).map(([, i]) => i);
      const answers = await openLoop({
        url,
        rate: 100,
        count: missing.length,
        timeoutMs: 30_000,
        make: (i) => signedDelivery(name, missing[i] ?? -1),
      });
      for (const r of answers) if (r.status === 200) retried.add(r.deliveryId ?? '');
      if (retried.size < sentIndexes.size) await sleep(1000);
    }
    const stored = await storedIds(database.pool);
    const signalled = performance.now();
    const exit = await Promise.race([
      serve.stop('SIGTERM'),
      sleep(20_000).then(() => {
        serve.child.kill('SIGKILL');
        throw new Error(`serve did not exit 20 s after SIGTERM:\n${serve.stderr().slice(-2000)}`);
      }),
    ]);
    return {
      results,
      manual,
      probes,
      faultAt,
      healedAt,
      storedAgainMs: (storedAgain?.sentAt ?? Number.NaN) + (storedAgain?.ms ?? 0) - healedAt,
      readyAgainMs: (readyAgain?.answeredAt ?? Number.NaN) - healedAt,
      unavailableCounted: metric(
        metrics,
        /signfold_webhook_deliveries_total\{outcome="unavailable",status="503"\} (\d+)/,
      ),
      timeoutsCounted: metric(metrics, /signfold_webhook_append_timeouts_total (\d+)/),
      acknowledged,
      sent: new Set(sentIndexes.keys()),
      storedBeforeRetry,
      stored,
      retryRounds,
      exit,
      stopMs: performance.now() - signalled,
      answeredWithinMs: serve
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { event?: string; path?: string; durationMs?: number })
        .filter((line) => line.event === 'request' && line.path === '/webhooks')
        .map((line) => line.durationMs ?? Number.NaN),
      stderr: serve.stderr(),
    };
  } finally {
    serve.child.kill('SIGKILL');
    await proxy.close();
    await database.close().catch(() => undefined);
  }
};
