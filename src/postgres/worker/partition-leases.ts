/**
 * Who projects which partition: lease rows in the `partitions` table, renewed
 * by heartbeats and timed by the database clock. A claim bumps the
 * partition's epoch; every batch commits only if the owner and epoch are
 * still the ones it started with (see batch-write.ts), so a worker that
 * lost its claim (stopped, cut off, too slow) cannot write after another
 * took over.
 */
import { checkTablesKept } from '../rebuild/replaced-tables.js';
import type { SchemaName } from '../schema-name.js';
import { send } from '../sql/send.js';
import { type Sql, sql } from '../sql/sql.js';
import type { SqlQueryable } from '../sql-client.js';

/**
 * The condition that the row is one of the table of OID `oid` (see
 * replaced-tables.ts); always true when the worker pinned none.
 */
const sameTable = (oid: string | null): Sql => sql`(${oid}::oid IS NULL OR tableoid = ${oid}::oid)`;

/** A partition this worker holds, with the epoch of its claim. */
export type Claims = Map<number, number>;

/** `ms` milliseconds (a value or an expression) from the database's clock now, as SQL. */
export const leaseEnd = (ms: Sql | number): Sql =>
  sql`clock_timestamp() + ${ms}::double precision * interval '1 millisecond'`;

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
  const table = sql.id(schema, 'partitions');
  await send(
    db,
    sql`INSERT INTO ${sql.id(schema, 'workers')} (id, started_at, lease_until)
       VALUES (${workerId}, clock_timestamp(), ${leaseEnd(leaseMs)})
     ON CONFLICT (id) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
  );
  // A lease this worker let expire is renewed as long as nobody claimed it:
  // nobody else can have written meanwhile (a claim would have set the owner).
  const renewed = await send<ClaimRow>(
    db,
    sql`UPDATE ${table} SET lease_until = ${leaseEnd(leaseMs)}
      WHERE owner = ${workerId} AND ${sameTable(oid)} RETURNING partition, epoch`,
  );
  const held = claimsOf(renewed.rows);
  const live = await send<{ n: string }>(
    db,
    sql`SELECT count(*) AS n FROM ${sql.id(schema, 'workers')} WHERE lease_until > clock_timestamp()`,
  );
  const share = Math.ceil(partitions / Math.max(1, Number(live.rows[0]?.n ?? 1)));
  if (held.size > share) {
    const extra = [...held.keys()].sort((a, b) => b - a).slice(0, held.size - share);
    await send(
      db,
      sql`UPDATE ${table} SET owner = NULL, lease_until = NULL
        WHERE owner = ${workerId} AND partition = ANY(${extra}::integer[]) AND ${sameTable(oid)}`,
    );
    for (const partition of extra) held.delete(partition);
  } else if (held.size < share) {
    const claimed = await send<ClaimRow>(
      db,
      sql`UPDATE ${table} SET owner = ${workerId}, epoch = epoch + 1, lease_until = ${leaseEnd(leaseMs)}
        WHERE partition IN (
          SELECT partition FROM ${table}
           WHERE (owner IS NULL OR lease_until < clock_timestamp()) AND ${sameTable(oid)}
           ORDER BY partition LIMIT ${share - held.size} FOR UPDATE SKIP LOCKED)
          AND ${sameTable(oid)}
        RETURNING partition, epoch`,
    );
    for (const [partition, epoch] of claimsOf(claimed.rows)) held.set(partition, epoch);
  }
  // Rows of workers gone for a while only clutter `pg status`.
  await send(
    db,
    sql`DELETE FROM ${sql.id(schema, 'workers')} WHERE lease_until < clock_timestamp() - interval '10 minutes'`,
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
  await send(
    db,
    sql`UPDATE ${sql.id(schema, 'partitions')} SET owner = NULL, lease_until = NULL
      WHERE owner = ${workerId} AND ${sameTable(pinned ?? null)}`,
  );
  await send(db, sql`DELETE FROM ${sql.id(schema, 'workers')} WHERE id = ${workerId}`);
};
