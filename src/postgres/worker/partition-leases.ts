/**
 * Who projects which partition: lease rows in the `partitions` table, renewed
 * by heartbeats and timed by the database clock. A claim bumps the
 * partition's epoch; every batch commits only if the owner and epoch are
 * still the ones it started with (see partition-batch.ts), so a worker that
 * lost its claim (stopped, cut off, too slow) cannot write after another
 * took over.
 */
import { checkTablesKept } from '../rebuild/replaced-tables.js';
import type { SchemaName } from '../schema-name.js';
import type { SqlQueryable } from '../sql-client.js';

/**
 * The condition that the row is one of the table of OID `$param` (see
 * replaced-tables.ts); always true when the worker pinned none.
 */
const sameTable = (param: string): string => `(${param}::oid IS NULL OR tableoid = ${param}::oid)`;

/** A partition this worker holds, with the epoch of its claim. */
export type Claims = Map<number, number>;

/** `$n` milliseconds from the database's clock now, as SQL. */
export const leaseEnd = (param: string): string =>
  `clock_timestamp() + ${param}::double precision * interval '1 millisecond'`;

interface ClaimRow {
  readonly partition: number;
  readonly epoch: string;
}

const claimsOf = (rows: readonly ClaimRow[]): Claims =>
  new Map(rows.map((row) => [row.partition, Number(row.epoch)]));

/**
 * One heartbeat: registers the worker (its row says it is alive, for the
 * fair share), renews the leases it still holds, gives back partitions beyond
 * its fair share (⌈partitions / live workers⌉) and claims free or expired
 * ones up to it. Returns the partitions held now, with their epochs. With
 * `pinned` (the OID of the partitions table the worker started on), it
 * throws `TablesReplacedError` once that table was replaced, and its
 * statements touch no row of another table, even one swapped in meanwhile.
 */
export const maintainClaims = async (
  db: SqlQueryable,
  schema: SchemaName,
  workerId: string,
  leaseMs: number,
  partitions: number,
  pinned?: string,
): Promise<Claims> => {
  if (pinned !== undefined) await checkTablesKept(db, schema, pinned);
  const oid = pinned ?? null;
  await db.query(
    `INSERT INTO ${schema}.workers (id, started_at, lease_until)
       VALUES ($1, clock_timestamp(), ${leaseEnd('$2')})
     ON CONFLICT (id) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
    [workerId, leaseMs],
  );
  // A lease this worker let expire is renewed as long as nobody claimed it:
  // nobody else can have written meanwhile (a claim would have set the owner).
  const renewed = await db.query<ClaimRow>(
    `UPDATE ${schema}.partitions SET lease_until = ${leaseEnd('$2')}
      WHERE owner = $1 AND ${sameTable('$3')} RETURNING partition, epoch`,
    [workerId, leaseMs, oid],
  );
  const held = claimsOf(renewed.rows);
  const live = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM ${schema}.workers WHERE lease_until > clock_timestamp()`,
  );
  const share = Math.ceil(partitions / Math.max(1, Number(live.rows[0]?.n ?? 1)));
  if (held.size > share) {
    const extra = [...held.keys()].sort((a, b) => b - a).slice(0, held.size - share);
    await db.query(
      `UPDATE ${schema}.partitions SET owner = NULL, lease_until = NULL
        WHERE owner = $1 AND partition = ANY($2::integer[]) AND ${sameTable('$3')}`,
      [workerId, extra, oid],
    );
    for (const partition of extra) held.delete(partition);
  } else if (held.size < share) {
    const claimed = await db.query<ClaimRow>(
      `UPDATE ${schema}.partitions SET owner = $1, epoch = epoch + 1, lease_until = ${leaseEnd('$2')}
        WHERE partition IN (
          SELECT partition FROM ${schema}.partitions
           WHERE (owner IS NULL OR lease_until < clock_timestamp()) AND ${sameTable('$4')}
           ORDER BY partition LIMIT $3 FOR UPDATE SKIP LOCKED)
          AND ${sameTable('$4')}
        RETURNING partition, epoch`,
      [workerId, leaseMs, share - held.size, oid],
    );
    for (const [partition, epoch] of claimsOf(claimed.rows)) held.set(partition, epoch);
  }
  // Rows of workers gone for a while only clutter `pg status`.
  await db.query(
    `DELETE FROM ${schema}.workers WHERE lease_until < clock_timestamp() - interval '10 minutes'`,
  );
  return held;
};

/** Gives every partition of this worker back at once (a clean exit), so others need not wait for expiry. */
export const releaseClaims = async (
  db: SqlQueryable,
  schema: SchemaName,
  workerId: string,
  pinned?: string,
): Promise<void> => {
  await db.query(
    `UPDATE ${schema}.partitions SET owner = NULL, lease_until = NULL
      WHERE owner = $1 AND ${sameTable('$2')}`,
    [workerId, pinned ?? null],
  );
  await db.query(`DELETE FROM ${schema}.workers WHERE id = $1`, [workerId]);
};
