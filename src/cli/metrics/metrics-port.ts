/** `--metrics-port P` of `pg work` and `react`: where their `/metrics` listens. */
import { integerFlag, type OptionTable, type ParsedArgs, stringFlag } from '../args.js';
import { usageError } from '../cli-error.js';

/** The flag, for a command's option table. */
export const METRICS_PORT_OPTION: OptionTable = { 'metrics-port': { type: 'string' } };

/**
 * Where the metrics are served: always on the loopback address, since they
 * name reactors and partitions and carry no authentication; a Prometheus
 * elsewhere scrapes through an agent or a proxy the operator controls.
 */
export const METRICS_HOST = '127.0.0.1';

/** `--metrics-port P`: 0 (any free port, printed once bound) to 65535; a usage error otherwise. */
export const metricsPort = (raw: string): number => {
  const port = integerFlag('--metrics-port', raw);
  if (port > 65_535) throw usageError(`--metrics-port must be 0 to 65535 (got '${raw}')`);
  return port;
};

/** `--metrics-port P` of `parsed`; `undefined` without it. */
export const metricsPortFlag = (parsed: ParsedArgs): number | undefined => {
  const raw = stringFlag(parsed, 'metrics-port');
  return raw === undefined ? undefined : metricsPort(raw);
};
