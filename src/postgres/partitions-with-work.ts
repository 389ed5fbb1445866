/**
 * The start of a live catch-up: which held partitions have events to fold.
 *
 * Each append moves the newest position, and with it every partition's
 * checkpoint falls behind, though most partitions got no event (an event
 * belongs to one of them; only template events to all). Projecting those
 * through a batch each cost a transaction and about five round trips per
 * partition on every wake-up: with 16 partitions that, not the events,
 * was most of what a following worker did. Here one statement advances
 * every such partition straight to the newest position and names the others.
 *
 * Sound for the same reasons a batch is: positions become visible in order
 * (the append lock, migrations.ts), so "no event of this partition or of
 * every partition in (checkpoint, newest]" read in the statement's snapshot
 * stays true; and each row moves only under this worker's claim (owner,
 * epoch, live lease), from the checkpoint the statement read.
 */
import { EVERY_PARTITION } from './migration-partitions.js';
import { type Claims, leaseEnd } from './partition-leases.js';
import type { SchemaName } from './schema-name.js';
import { prepared, type SqlQueryable } from './sql-client.js';

/** What {@link partitionsWithWork} found. */
export interface PartitionsBehind {
  /** The held partitions still behind, each with its checkpoint as read. */
  readonly behind: ReadonlyMap<number, number>;
  /** The newest position the statement saw (0 when it read none). */
  readonly high: number;
}

/**
 * Advances the held partitions with no event after their checkpoint up to
 * the newest position (renewing their leases, as a batch does), and returns
 * the held partitions still behind it: those with events to fold, and any
 * whose claim turned out lost (their batch says so).
 */
export const partitionsWithWork = async (
  db: SqlQueryable,
  schema: SchemaName,
  workerId: string,
  claims: Claims,
  leaseMs: number,
): Promise<PartitionsBehind> => {
  if (claims.size === 0) return { behind: new Map(), high: 0 };
  const { rows } = await db.query<{ partition: number; position: string; high: string }>(
    prepared(
      `WITH held AS (
       SELECT * FROM unnest($2::integer[], $3::bigint[]) AS h(partition, epoch)
     ), newest AS (
       SELECT coalesce(max(position), 0) AS high FROM ${schema}.events
     ), advanced AS (
       UPDATE ${schema}.partitions AS p
          SET position = newest.high, updated_at = clock_timestamp(), lease_until = ${leaseEnd('$4')}
         FROM held, newest
        WHERE p.partition = held.partition AND p.epoch = held.epoch AND p.owner = $1
          AND p.lease_until > clock_timestamp() AND p.position < newest.high
          AND NOT EXISTS (
            SELECT 1 FROM ${schema}.events AS e
             WHERE e.partition IN (p.partition, ${EVERY_PARTITION})
               AND e.position > p.position AND e.position <= newest.high)
       RETURNING p.partition
     )
     SELECT p.partition, p.position, newest.high
       FROM ${schema}.partitions AS p JOIN held USING (partition), newest
      WHERE p.position < newest.high AND p.partition NOT IN (SELECT partition FROM advanced)`,
      [workerId, [...claims.keys()], [...claims.values()], leaseMs],
    ),
  );
  return {
    behind: new Map(rows.map((row) => [row.partition, Number(row.position)])),
    high: Number(rows[0]?.high ?? 0),
  };
};
