/**
 * `pg work --metrics-port P`: the worker's metrics. The lag and effect
 * gauges are read from the database at each scrape (every worker of a schema
 * reports the same partitions), the counters are this worker's own work.
 */
import type { SchemaName } from '../../postgres/schema-name.js';
import type { CliIO } from '../cli-io.js';
import type { ProcessMetrics } from '../metrics/process-metrics.js';

/**
 * Opens the gauges' own connection and serves the metrics on 127.0.0.1:`port`;
 * `close` stops both. Loaded only with the flag (it loads prom-client).
 */
export const startWorkMetrics = async (
  database: string,
  schema: SchemaName,
  settings: {
    readonly port: number;
    readonly connectTimeoutMs: number;
    readonly reactors: readonly string[];
  },
  io: CliIO,
): Promise<ProcessMetrics> => {
  const { openPostgresGauges } = await import('../metrics/postgres-gauges.js');
  const { startProcessMetrics } = await import('../metrics/process-metrics.js');
  const gauges = await openPostgresGauges(database, schema, settings.connectTimeoutMs);
  try {
    const served = await startProcessMetrics(
      settings.port,
      { read: gauges.read, reactors: settings.reactors, partitioned: true, counters: true },
      io,
    );
    return {
      metrics: served.metrics,
      close: async () => {
        await served.close();
        await gauges.close();
      },
    };
  } catch (cause) {
    await gauges.close();
    throw cause;
  }
};
