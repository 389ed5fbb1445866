/**
 * The sending side of webhooks, as a provider that retries would run it: every delivery signed
 * the way `signfold serve` verifies by default (docs/webhooks.md: hex HMAC-SHA256 of the raw body
 * in `x-signature`, prefixed `sha256=`; the id in `x-delivery-id`), a bounded number in flight,
 * each attempt bounded in time, and retries on 5xx, timeouts and network errors only: a 4xx says
 * the delivery itself is wrong, and sending it again would not help.
 */
import { createHmac } from 'node:crypto';
import type { DeliveryPlan, PlannedDelivery } from './delivery-plan.js';

/** Where and how to send. */
export interface SendOptions {
  /** The receiving endpoint, e.g. `http://127.0.0.1:PORT/webhooks`. */
  readonly url: string;
  /** HMAC key; `null` sends no signature. */
  readonly secret: string | null;
  /** Deliveries in flight at once (default 4). */
  readonly concurrency?: number;
  /** Deadline of one attempt, answer included (default 5,000 ms). */
  readonly timeoutMs?: number;
  /** Further attempts after a 5xx, a timeout or a network error (default 3). */
  readonly retries?: number;
  /** Wait before the first retry, doubled for each next one (default 50 ms). */
  readonly retryDelayMs?: number;
}

/** What became of one planned delivery. */
export interface DeliveryResult {
  readonly deliveryId: string;
  readonly eventIndex: number;
  readonly copy: 0 | 1;
  /** `delivered`: a 2xx; `rejected`: a 4xx (not retried); `failed`: still 5xx or no answer after every retry. */
  readonly outcome: 'delivered' | 'rejected' | 'failed';
  readonly attempts: number;
  /** Status of the last answer, `null` when the last attempt got none. */
  readonly status: number | null;
  /** Why the last attempt failed, when it did. */
  readonly error?: string;
}

/** The plan's decisions and what the sending did, for a test to compare with the receiver. */
export interface DeliveryReport {
  /** Events in the story. */
  readonly events: number;
  /** Deliveries the plan made (events not lost, plus duplicates). */
  readonly planned: number;
  readonly lost: readonly string[];
  readonly duplicated: readonly string[];
  readonly reordered: readonly string[];
  readonly delayed: readonly string[];
  /** One per planned delivery, in sending order. */
  readonly results: readonly DeliveryResult[];
  readonly delivered: number;
  readonly rejected: number;
  readonly failed: number;
  /** Attempts beyond the first, over all deliveries. */
  readonly retries: number;
}

const sleep = (ms: number): Promise<void> =>
  ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));

const describe = (cause: unknown): string => {
  if (!(cause instanceof Error)) return String(cause);
  // undici hides the reason of a network error (ECONNREFUSED, a reset) in `cause`.
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
  return `${cause.name}: ${cause.message}${inner}`;
};

/** The `x-signature` value for `body`. */
export const signBody = (body: string, secret: string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

const sendOne = async (
  delivery: PlannedDelivery,
  options: Required<Omit<SendOptions, 'secret'>> & { readonly secret: string | null },
): Promise<DeliveryResult> => {
  await sleep(delivery.delayMs);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-delivery-id': delivery.deliveryId,
    ...(options.secret === null ? {} : { 'x-signature': signBody(delivery.body, options.secret) }),
  };
  const { deliveryId, eventIndex, copy } = delivery;
  let attempts = 0;
  let status: number | null = null;
  let error: string | undefined;
  while (attempts <= options.retries) {
    if (attempts > 0) await sleep(options.retryDelayMs * 2 ** (attempts - 1));
    attempts += 1;
    try {
      const response = await fetch(options.url, {
        method: 'POST',
        headers,
        body: delivery.body,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      status = response.status;
      // Read to the end, so the connection can be reused and the timeout covers the answer.
      const text = await response.text();
      if (status < 300)
        return { deliveryId, eventIndex, copy, outcome: 'delivered', attempts, status };
      error = `answered ${status}: ${text.slice(0, 200)}`;
      if (status < 500) {
        return { deliveryId, eventIndex, copy, outcome: 'rejected', attempts, status, error };
      }
    } catch (cause) {
      status = null;
      error = describe(cause);
    }
  }
  return {
    deliveryId,
    eventIndex,
    copy,
    outcome: 'failed',
    attempts,
    status,
    ...(error === undefined ? {} : { error }),
  };
};

/**
 * Sends the plan's deliveries, at most `concurrency` at a time, started in plan order (so the
 * receiver sees that order, give or take what is in flight together and what is held back).
 * Never throws for a delivery: each one's fate is in the report.
 */
export const sendDeliveries = async (
  plan: DeliveryPlan,
  events: number,
  options: SendOptions,
): Promise<DeliveryReport> => {
  const settings = {
    concurrency: 4,
    timeoutMs: 5000,
    retries: 3,
    retryDelayMs: 50,
    ...options,
  };
  if (!(Number.isInteger(settings.concurrency) && settings.concurrency >= 1)) {
    throw new RangeError(`concurrency must be a positive integer, got ${settings.concurrency}`);
  }
  const results: DeliveryResult[] = new Array(plan.deliveries.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < plan.deliveries.length) {
      const index = next++;
      const delivery = plan.deliveries[index];
      if (delivery !== undefined) results[index] = await sendOne(delivery, settings);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(settings.concurrency, plan.deliveries.length) }, worker),
  );
  const count = (outcome: DeliveryResult['outcome']): number =>
    results.filter((result) => result.outcome === outcome).length;
  return {
    events,
    planned: plan.deliveries.length,
    lost: plan.lost,
    duplicated: plan.duplicated,
    reordered: plan.reordered,
    delayed: plan.delayed,
    results,
    delivered: count('delivered'),
    rejected: count('rejected'),
    failed: count('failed'),
    retries: results.reduce((sum, result) => sum + result.attempts - 1, 0),
  };
};
