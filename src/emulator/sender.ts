/**
 * The sending side of the emulated service, as a provider that promises order
 * runs it: one delivery in flight at a time, in the plan's order, so nothing
 * overtakes (with no reordering planned, the receiver sees the emitted order);
 * each attempt bounded in time; a delivery that gets no 2xx, or no answer in
 * time, sent again under the same delivery id after a backoff, a bounded
 * number of times, then given up. Every wait ends when the emulator stops.
 */
import type { DeliveryPlan } from './delivery-plan.js';

/** How to send. */
export interface SendSettings {
  /** The receiving endpoint. */
  readonly url: string;
  /** The headers of one attempt (signature, delivery id), signed when it is made. */
  readonly headersOf: (deliveryId: string, body: Uint8Array) => Record<string, string>;
  /** Deliveries started per second; 0 for no limit (default 0). */
  readonly rate?: number;
  /** Attempts after the first, before giving up (default 5). */
  readonly retries?: number;
  /** Deadline of one attempt, answer included (default 5,000 ms). */
  readonly timeoutMs?: number;
  /** Wait before the first retry, doubled for each next one up to 5 s (default 100 ms). */
  readonly backoffMs?: number;
  /** A seeded wait of up to this long before each delivery (default 0): a slow provider. */
  readonly delayMs?: number;
  /** Called as the first attempt of a delivery of event `index` starts. */
  readonly onStart?: (index: number) => void;
}

/** The counts of a run, as the summary prints them. */
export interface DeliveryCounts {
  /** Deliveries made (first attempts, duplicates included). */
  readonly sent: number;
  /** Deliveries answered with a 2xx. */
  readonly acknowledged: number;
  /** Attempts beyond the first, over all deliveries. */
  readonly retried: number;
  /** Events dropped by `loss`. */
  readonly lost: number;
  /** Events delivered twice by `duplicate`. */
  readonly duplicated: number;
  /** Events sent after later ones by `reorder`. */
  readonly reordered: number;
  /** Deliveries still without a 2xx after every retry. */
  readonly givenUp: number;
}

/** What the sender needs of the story: the delivery id and body of each event. */
export interface Outgoing {
  readonly deliveryId: string;
  readonly body: Uint8Array;
}

/** A wait that ends early (resolving) when `signal` aborts. */
const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  ms <= 0 || signal.aborted
    ? Promise.resolve()
    : new Promise((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal.addEventListener('abort', done, { once: true });
      });

/** Whether one attempt got a 2xx within `timeoutMs`. */
const attempt = async (
  url: string,
  headers: Record<string, string>,
  body: Uint8Array,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<boolean> => {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), stop]),
    });
    // Read to the end: the deadline covers the answer, and the connection is reused.
    await response.arrayBuffer();
    return response.status >= 200 && response.status < 300;
  } catch {
    return false;
  }
};

/**
 * Sends the plan's deliveries of `outgoing`; `onProgress` hears the counts
 * after each delivery. Resolves with the final counts once every delivery was
 * acknowledged or given up, or `stop` aborted.
 */
export const sendPlan = async (
  plan: DeliveryPlan,
  outgoing: readonly Outgoing[],
  settings: SendSettings,
  stop: AbortSignal,
  jitter: () => number,
  onProgress: (counts: DeliveryCounts) => void = () => undefined,
): Promise<DeliveryCounts> => {
  const rate = settings.rate ?? 0;
  const retries = settings.retries ?? 5;
  const timeoutMs = settings.timeoutMs ?? 5000;
  const backoffMs = settings.backoffMs ?? 100;
  const delayMs = settings.delayMs ?? 0;
  let counts: DeliveryCounts = {
    sent: 0,
    acknowledged: 0,
    retried: 0,
    lost: plan.lost.length,
    duplicated: plan.duplicated.length,
    reordered: plan.reordered.length,
    givenUp: 0,
  };
  let nextStart = 0;
  for (const delivery of plan.deliveries) {
    if (stop.aborted) break;
    const item = outgoing[delivery.index];
    if (item === undefined) continue;
    // Drawn whatever the delay, so the draws do not depend on it.
    const hold = Math.floor(jitter() * delayMs);
    await pause(Math.max(hold, nextStart - Date.now()), stop);
    if (rate > 0) nextStart = Date.now() + 1000 / rate;
    settings.onStart?.(delivery.index);
    counts = { ...counts, sent: counts.sent + 1 };
    let acknowledged = false;
    for (let tries = 0; tries <= retries && !stop.aborted; tries += 1) {
      if (tries > 0) {
        counts = { ...counts, retried: counts.retried + 1 };
        await pause(Math.min(5000, backoffMs * 2 ** (tries - 1)), stop);
        if (stop.aborted) break;
      }
      const headers = settings.headersOf(item.deliveryId, item.body);
      acknowledged = await attempt(settings.url, headers, item.body, timeoutMs, stop);
      if (acknowledged) break;
    }
    counts = acknowledged
      ? { ...counts, acknowledged: counts.acknowledged + 1 }
      : { ...counts, givenUp: counts.givenUp + 1 };
    onProgress(counts);
  }
  return counts;
};
