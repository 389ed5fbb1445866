/**
 * `/metrics` of `signfold serve`, in the Prometheus text format, by
 * prom-client. prom-client is loaded here, on use, and only `serve` loads
 * this file: `import 'signfold'` and the other commands never pay for it.
 * A registry of its own (not prom-client's global one), so an application
 * that embeds signfold keeps its metrics apart.
 */

import type { AttemptObserver } from '../../core/reactors/attempt-result.js';
import type { EffectsReport } from '../../core/reactors/effects-report.js';
import type { WebhookOutcome } from '../../webhooks/webhook-types.js';
import {
  type ProjectionMetricsOptions,
  registerProjectionMetrics,
} from '../metrics/projection-metrics.js';

/** The metrics a running server updates and serves. */
export interface ServeMetrics {
  /** Counts a decided delivery (called by the handler before it answers). */
  count(outcome: WebhookOutcome): void;
  /** An append was answered at its deadline (`--append-timeout`): its delivery got 503. */
  timedOut(): void;
  /** A request entered (+1) or left (-1) the webhook endpoint. */
  inFlight(delta: 1 | -1): void;
  /** Counts an effect attempt of the reactors run in the server (`--reactors`). */
  readonly attempted: AttemptObserver;
  /** The exposition text; rejects when the gauges read at scrape time cannot be read now. */
  render(): Promise<string>;
  /** Its `Content-Type`. */
  readonly contentType: string;
}

/** Every `outcome`/`status` pair the handler can decide, reported from 0 on. */
const KNOWN = [
  ['stored', '200'],
  ['duplicate', '200'],
  ['rejected', '400'],
  ['rejected', '401'],
  ['rejected', '405'],
  ['rejected', '413'],
  ['forbidden', '403'],
  ['unavailable', '503'],
] as const;

/** Append latencies from 0.5 ms (no fsync) to 5 s (a struggling disk or database). */
const APPEND_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The status a delivery's outcome was answered with. */
export const statusOf = (outcome: WebhookOutcome): number =>
  outcome.kind === 'stored' || outcome.kind === 'duplicate' ? 200 : outcome.status;

/**
 * Loads prom-client and creates the registry, the delivery counter and the
 * append histogram; with `effects` (reactors run in the server), the gauges
 * of pending and parked effects per reactor, read at each scrape; with
 * `projection`, the projection and reactor metrics `pg work` and `react`
 * serve (docs/cli.md#metrics).
 */
export const createServeMetrics = async (
  effects?: () => EffectsReport,
  projection?: ProjectionMetricsOptions,
): Promise<ServeMetrics> => {
  const prom = await import('prom-client');
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry });
  const deliveries = new prom.Counter({
    name: 'signfold_webhook_deliveries_total',
    help: 'Webhook deliveries by what was decided: stored, duplicate (stored before), rejected (400/401/405/413), forbidden (403: a secret bound to other companies), answered (by a verify hook), unavailable (503: storage down)',
    labelNames: ['outcome', 'status'],
    registers: [registry],
  });
  for (const [outcome, status] of KNOWN) deliveries.inc({ outcome, status }, 0);
  const appendSeconds = new prom.Histogram({
    name: 'signfold_webhook_append_seconds',
    help: 'Time the durable append of a delivery took (stored and duplicate), in seconds',
    buckets: APPEND_BUCKETS,
    registers: [registry],
  });
  const timeouts = new prom.Counter({
    name: 'signfold_webhook_append_timeouts_total',
    help: 'Appends not committed within --append-timeout: their deliveries were answered 503 (also counted as unavailable)',
    registers: [registry],
  });
  const inFlight = new prom.Gauge({
    name: 'signfold_webhook_requests_in_flight',
    help: 'Requests to /webhooks being read, verified or appended right now',
    registers: [registry],
  });
  if (effects !== undefined) {
    const gauge = (name: string, help: string, member: 'pending' | 'parked') =>
      new prom.Gauge({
        name,
        help,
        labelNames: ['reactor'],
        registers: [registry],
        collect() {
          for (const row of effects().reactors) this.set({ reactor: row.name }, row[member]);
        },
      });
    gauge(
      'signfold_effects_pending',
      'Effects scheduled, ready or retrying, per reactor',
      'pending',
    );
    gauge(
      'signfold_effects_parked',
      'Effects parked after their last attempt failed, per reactor',
      'parked',
    );
  }
  const shared =
    projection === undefined ? undefined : registerProjectionMetrics(prom, registry, projection);
  return {
    attempted: (reactor, result) => shared?.attempted(reactor, result),
    count: (outcome) => {
      deliveries.inc({ outcome: outcome.kind, status: String(statusOf(outcome)) });
      if (outcome.kind === 'stored' || outcome.kind === 'duplicate') {
        appendSeconds.observe(outcome.appendMs / 1000);
      }
    },
    timedOut: () => timeouts.inc(),
    inFlight: (delta) => inFlight.inc(delta),
    render: async () => {
      await shared?.refresh();
      return registry.metrics();
    },
    contentType: registry.contentType,
  };
};
