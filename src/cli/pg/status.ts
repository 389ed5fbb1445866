/** `signfold pg status`: the store's size and each partition's owner, checkpoint, lag and last error. */

import { counted } from '../../core/plural.js';
import { type ProjectionStatus, readProjectionStatus, type SqlPool } from '../../postgres/index.js';
import { EXIT, type ExitCode } from '../cli-error.js';
import { type CliIO, writeJson, writeLines } from '../cli-io.js';
import type { PgTarget } from '../postgres-pool.js';
import { formatTable } from '../table.js';
import { postgresFailure } from './failure.js';
import { projectionSummary } from './projection-summary.js';

const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The time left on a lease, or how long ago it ran out (its owner stopped renewing it). */
const lease = (ms: number | null): string => {
  if (ms === null) return '-';
  return ms > 0 ? seconds(ms) : `expired ${seconds(-ms)} ago`;
};

/** The status as lines of text. */
export const formatStatus = (status: ProjectionStatus): string[] => {
  const totals = status.partitions.reduce(
    (sum, p) => ({
      applied: sum.applied + p.applied,
      noOps: sum.noOps + p.noOps,
      conflicts: sum.conflicts + p.conflicts,
      invalid: sum.invalid + p.invalid,
    }),
    { applied: 0, noOps: 0, conflicts: 0, invalid: 0 },
  );
  const rows = status.partitions.map((p) => [
    String(p.partition),
    p.owner ?? '-',
    p.owner === null ? '-' : lease(p.leaseRemainingMs),
    String(p.checkpoint),
    String(p.lagEvents),
    p.lagSeconds === null ? '-' : p.lagSeconds.toFixed(1),
    p.lastError === null ? '-' : `${p.lastErrorAt ?? ''} ${p.lastError}`,
  ]);
  return [
    `schema ${status.schema}: ${counted(status.events, 'event')} (last position ${status.lastPosition}, ${megabytes(status.storeBytes)}), ` +
      `${counted(status.partitions.length, 'partition')}, ${counted(status.workers.length, 'worker')} alive`,
    projectionSummary({ checkpoint: status.checkpoint, ...totals }),
    ...formatTable(
      ['partition', 'owner', 'lease', 'checkpoint', 'lag', 'lag s', 'last error'],
      rows,
      '',
    ),
  ];
};

/** Prints the status (as JSON with `--json`). */
export const pgStatus = async (
  pool: SqlPool,
  target: PgTarget,
  json: boolean,
  io: CliIO,
): Promise<ExitCode> => {
  const status = await readProjectionStatus(pool, target.schemaOptions);
  if (status.isErr()) throw postgresFailure(status.error);
  if (json) writeJson(io.stdout, status.value, 2);
  else writeLines(io.stdout, formatStatus(status.value));
  return EXIT.ok;
};
