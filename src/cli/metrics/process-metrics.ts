/**
 * The metrics of `pg work --metrics-port` and `react --metrics-port`: a
 * registry of their own (prom-client's default process metrics and the
 * projection and reactor metrics) and the server that serves it. prom-client
 * is loaded here, only when the flag is given.
 */
import { type CliIO, writeLines } from '../cli-io.js';
import { startMetricsServer } from './metrics-server.js';
import {
  type ProjectionMetrics,
  type ProjectionMetricsOptions,
  registerProjectionMetrics,
} from './projection-metrics.js';

/** The metrics of a running process. */
export interface ProcessMetrics {
  readonly metrics: ProjectionMetrics;
  /** Stops serving them. */
  close(): Promise<void>;
}

/**
 * Registers the metrics, starts serving them on 127.0.0.1:`port`, and prints
 * `metrics listening on http://127.0.0.1:PORT/metrics` on stdout (as `serve` prints where it
 * listens), so that `--metrics-port 0` can be found.
 */
export const startProcessMetrics = async (
  port: number,
  options: ProjectionMetricsOptions,
  io: CliIO,
): Promise<ProcessMetrics> => {
  const prom = await import('prom-client');
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry });
  const metrics = registerProjectionMetrics(prom, registry, options);
  const server = await startMetricsServer(port, {
    render: async () => {
      await metrics.refresh();
      return registry.metrics();
    },
    contentType: registry.contentType,
  });
  writeLines(io.stdout, [`metrics listening on ${server.url}`]);
  return { metrics, close: () => server.close() };
};
