/**
 * What `signfold pg status` shows: the store's size, and per partition its
 * owner and lease, checkpoint, lag (events still to read, and how long the
 * partition has been waiting for them) and last error; with the workers alive.
 */
import type { Result } from 'neverthrow';
import type { PostgresError } from '../postgres-error.js';
import type { SchemaOptions } from '../schema/migrate.js';
import { EVERY_PARTITION } from '../schema/migration-partitions.js';
import type { SqlPool } from '../sql-client.js';
import { readSnapshot } from './read-snapshot.js';

/** One partition's row in {@link ProjectionStatus}. */
export interface PartitionStatus {
  readonly partition: number;
  /** The worker holding it, or `null` (free). */
  readonly owner: string | null;
  /** Bumped by every claim: batches of an older epoch are refused. */
  readonly epoch: number;
  /** Milliseconds until the owner's lease expires (negative: expired), `null` when free. */
  readonly leaseRemainingMs: number | null;
  /** Every event of the partition up to this position is projected. */
  readonly checkpoint: number;
  /** Events this partition still has to read (its own and the template events). */
  readonly lagEvents: number;
  /**
   * How long the partition has been waiting, in seconds (0 when nothing waits): the age of the
   * oldest waiting event by `received_at`, but no more than the time since the partition's
   * checkpoint last moved (or, before its first batch, since the schema was migrated). Live
   * traffic, received just now, reads as how late the projection is; imported history, whose
   * `received_at` lies in the past, as how long the partition has made no progress.
   */
  readonly lagSeconds: number | null;
  readonly applied: number;
  readonly noOps: number;
  readonly conflicts: number;
  readonly invalid: number;
  /** The last error a worker met on this partition, and when (ISO 8601), or `null`. */
  readonly lastError: string | null;
  readonly lastErrorAt: string | null;
}

/** A worker that renewed its lease lately. */
export interface WorkerStatus {
  readonly id: string;
  readonly startedAt: string;
  readonly leaseRemainingMs: number;
}

/** The state of a schema's store and projection. */
export interface ProjectionStatus {
  readonly schema: string;
  /** Events stored. */
  readonly events: number;
  /** The highest position stored (0 when empty). */
  readonly lastPosition: number;
  /** Bytes on disk of the events table with its indexes. */
  readonly storeBytes: number;
  /** Every event up to this position is projected (the smallest partition checkpoint). */
  readonly checkpoint: number;
  readonly partitions: readonly PartitionStatus[];
  /** Workers whose registration has not expired. */
  readonly workers: readonly WorkerStatus[];
}

type Row = Record<string, string | number | null>;

const num = (value: string | number | null | undefined): number => Number(value ?? 0);
const numOrNull = (value: string | number | null | undefined): number | null =>
  value === null || value === undefined ? null : Number(value);
const text = (value: string | number | null | undefined): string | null =>
  value === null || value === undefined ? null : String(value);

const partitionOf = (row: Row): PartitionStatus => ({
  partition: num(row.partition),
  owner: text(row.owner),
  epoch: num(row.epoch),
  leaseRemainingMs: numOrNull(row.lease_ms),
  checkpoint: num(row.position),
  lagEvents: num(row.lag_events),
  lagSeconds: num(row.lag_events) === 0 ? 0 : numOrNull(row.lag_seconds),
  applied: num(row.applied),
  noOps: num(row.no_ops),
  conflicts: num(row.conflicts),
  invalid: num(row.invalid),
  lastError: text(row.last_error),
  lastErrorAt: text(row.last_error_at),
});

/** Reads the status of a migrated schema, in one snapshot. */
export const readProjectionStatus = (
  pool: SqlPool,
  options: SchemaOptions = {},
): Promise<Result<ProjectionStatus, PostgresError>> =>
  readSnapshot(pool, options, 'the status', async (db, s) => {
    const store = await db.query<Row>(
      `SELECT count(*) AS events, coalesce(max(position), 0) AS last_position,
              pg_total_relation_size('${s}.events') AS bytes FROM ${s}.events`,
    );
    const partitions = await db.query<Row>(
      `SELECT p.partition, p.owner, p.epoch, p.position, p.applied, p.no_ops, p.conflicts, p.invalid,
              p.last_error, to_char(p.last_error_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last_error_at,
              round(extract(epoch FROM p.lease_until - clock_timestamp()) * 1000) AS lease_ms,
              lag.n AS lag_events,
              greatest(0, round(extract(epoch FROM clock_timestamp() -
                greatest(lag.oldest, coalesce(p.updated_at, v.migrated_at))), 3)) AS lag_seconds
         FROM ${s}.partitions AS p
         CROSS JOIN (SELECT max(migrated_at) AS migrated_at FROM ${s}.schema_version) AS v
         CROSS JOIN LATERAL (
           SELECT count(*) AS n, min(e.received_at) AS oldest FROM ${s}.events AS e
            WHERE e.partition IN (p.partition, ${EVERY_PARTITION}) AND e.position > p.position) AS lag
        ORDER BY p.partition`,
    );
    const workers = await db.query<Row>(
      `SELECT id, to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS started_at,
              round(extract(epoch FROM lease_until - clock_timestamp()) * 1000) AS lease_ms
         FROM ${s}.workers WHERE lease_until > clock_timestamp() ORDER BY started_at, id`,
    );
    const rows = partitions.rows.map(partitionOf);
    const head = store.rows[0];
    return {
      schema: s,
      events: num(head?.events),
      lastPosition: num(head?.last_position),
      storeBytes: num(head?.bytes),
      checkpoint: Math.min(...rows.map((p) => p.checkpoint)),
      partitions: rows,
      workers: workers.rows.map((row) => ({
        id: String(row.id),
        startedAt: String(row.started_at),
        leaseRemainingMs: num(row.lease_ms),
      })),
    };
  });
