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
 *
 * Its commit does not wait for the WAL flush (`synchronous_commit` off for
 * its own transaction, as a batch's): a checkpoint moved over no event
 * acknowledges nothing to anyone, and one lost in a server crash is moved
 * again by the next catch-up. Waiting made every wake-up flush the WAL once
 * more, beside the appends' own flushes, which queue behind it. The setting
 * is read from `quiet`, joined into the result: a statement that writes has
 * result rows (a partition it advances is behind `newest` in the statement's
 * snapshot), so `quiet` is evaluated whenever there is a commit to flush.
 */

import { EVERY_PARTITION } from '../schema/migration-partitions.js';
import type { SchemaName } from '../schema-name.js';
import { sendPrepared } from '../sql/send.js';
import { sql } from '../sql/sql.js';
import type { SqlQueryable } from '../sql-client.js';
import { type Claims, leaseEnd } from './partition-leases.js';

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
): Promise<Set<number>> => {
  if (claims.size === 0) return new Set();
  const events = sql.id(schema, 'events');
  const partitions = sql.id(schema, 'partitions');
  const { rows } = await sendPrepared<{ partition: number }>(
    db,
    sql`WITH quiet AS (
       SELECT set_config('synchronous_commit', 'off', true)
     ), held AS (
       SELECT * FROM unnest(${[...claims.keys()]}::integer[], ${[...claims.values()]}::bigint[])
                  AS h(partition, epoch)
     ), newest AS (
       SELECT coalesce(max(position), 0) AS high FROM ${events}
     ), advanced AS (
       UPDATE ${partitions} AS p
          SET position = newest.high, updated_at = clock_timestamp(), lease_until = ${leaseEnd(leaseMs)}
         FROM held, newest
        WHERE p.partition = held.partition AND p.epoch = held.epoch AND p.owner = ${workerId}
          AND p.lease_until > clock_timestamp() AND p.position < newest.high
          AND NOT EXISTS (
            SELECT 1 FROM ${events} AS e
             WHERE e.partition IN (p.partition, ${EVERY_PARTITION})
               AND e.position > p.position AND e.position <= newest.high)
       RETURNING p.partition
     )
     SELECT p.partition FROM ${partitions} AS p JOIN held USING (partition), newest, quiet
      WHERE p.position < newest.high AND p.partition NOT IN (SELECT partition FROM advanced)`,
  );
  return new Set(rows.map((row) => row.partition));
};
