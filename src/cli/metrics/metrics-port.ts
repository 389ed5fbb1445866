/** `--metrics-port P` of `pg work` and `react`: where their `/metrics` listens. */
import { fromTo, integerIn } from '../integer-option.js';

/**
 * Where the metrics are served: always on the loopback address, since they
 * name reactors and partitions and carry no authentication; a Prometheus
 * elsewhere scrapes through an agent or a proxy the operator controls.
 */
export const METRICS_HOST = '127.0.0.1';

/** `--metrics-port P`: 0 (any free port, printed once bound) to 65535; a usage error otherwise. */
export const metricsPort = integerIn(fromTo(0, 65_535));
