/**
 * `VACUUM FULL` of the tables a forget rewrote. A rewrite leaves the old row
 * versions in the table's pages: no query (and so no `pg_dump`) reads them
 * once no transaction can see them, but their bytes stay in the files until
 * the space is reused. Plain `VACUUM` only marks that space reusable; it
 * neither zeroes it nor gives it back. `VACUUM FULL` writes each table (its
 * TOAST table and indexes too) into new files and deletes the old ones, so
 * no file of the database holds the old versions any more. It takes an
 * ACCESS EXCLUSIVE lock for its duration: appends (events) and readers of
 * the table wait. The WAL, archives, backups and replicas' WAL still hold
 * them (docs/privacy.md says what to do about those).
 *
 * `VACUUM FULL` copies every old version that a transaction might still
 * read: one begun before the forget committed, in any database of the
 * server once it has written (its transaction id holds back every
 * database's horizon), or one in this database holding a snapshot. Such a
 * version is not an error for PostgreSQL, and the rewrite would end with
 * the name still in the new files. So it first waits for them to end, and
 * refuses, naming them, when they outlast the wait.
 */
import { err, ok, type Result, safeTry } from 'neverthrow';
import type { ForgetReport } from '../../engine/forget-report.js';
import { databaseError, type PostgresError } from '../postgres-error.js';
import type { SchemaOptions } from '../schema/migrate.js';
import { schemaName } from '../schema-name.js';
import { send } from '../sql/send.js';
import { sql } from '../sql/sql.js';
import { inlined } from '../sql/sql-literal.js';
import { checkOut, type SqlPool, type SqlPoolClient } from '../sql-client.js';

/** Options of {@link vacuumForgotten}. */
export interface VacuumOptions extends SchemaOptions {
  /** How long to wait for each table's lock, in ms (default 30,000): past it, an error. */
  readonly lockTimeoutMs?: number;
  /**
   * How long to wait for the transactions older than the vacuum (see the
   * file comment) to end, in ms (default 30,000): past it, an error that
   * names them, and no table vacuumed.
   */
  readonly waitMs?: number;
}

/** How often the wait for older transactions looks again, in ms. */
const LOOK_AGAIN_MS = 100;

/**
 * The sessions and prepared transactions that may still read row versions
 * that were live before transaction id `$1` (the first one not yet assigned
 * when the vacuum began): a transaction id older than it, in any database; a
 * snapshot older than it, in this one; a replication slot that holds the
 * horizon back. `pg_stat_activity` shows another role's sessions only to a
 * role with `pg_read_all_stats`; the server's oldest running transaction id
 * needs no privilege, so a transaction the role cannot see still counts.
 * `age()` compares 32-bit ids across wraparound.
 */
const OLDER_READERS = `
  WITH mark AS (SELECT $1::text::xid8 AS next, age(($1::text::bigint % 4294967296)::text::xid) AS age),
  seen AS (
    SELECT format('session %s (database %s, application %s, in a transaction since %s)',
                  a.pid, a.datname, coalesce(nullif(a.application_name, ''), 'unnamed'),
                  to_char(a.xact_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')) AS who
      FROM pg_stat_activity AS a, mark
     WHERE a.pid <> pg_backend_pid()
       AND (age(a.backend_xid) > mark.age
            OR (a.datname = current_database() AND age(a.backend_xmin) > mark.age))
    UNION ALL
    SELECT format('prepared transaction %s (database %s)', p.gid, p.database)
      FROM pg_prepared_xacts AS p, mark WHERE age(p.transaction) > mark.age
    UNION ALL
    SELECT format('replication slot %s', s.slot_name)
      FROM pg_replication_slots AS s, mark WHERE age(s.xmin) > mark.age)
  SELECT who FROM seen
  UNION ALL
  SELECT 'a transaction of a role whose sessions this one cannot see (pg_read_all_stats can)'
    FROM mark
   WHERE pg_snapshot_xmin(pg_current_snapshot()) < mark.next AND NOT EXISTS (SELECT FROM seen)`;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until nothing listed by {@link OLDER_READERS} is older than now;
 * what still is after `waitMs`, or an empty list.
 */
const olderReaders = async (client: SqlPoolClient, waitMs: number): Promise<string[]> => {
  const marked = await client.query<{ mark: string }>(
    'SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS mark',
  );
  const mark = marked.rows[0]?.mark ?? '0';
  const deadline = performance.now() + waitMs;
  for (;;) {
    const { rows } = await client.query<{ who: string }>(OLDER_READERS, [mark]);
    if (rows.length === 0 || performance.now() >= deadline) return rows.map((row) => row.who);
    await sleep(LOOK_AGAIN_MS);
  }
};

/**
 * The tables of `schema` that can hold text from events, every one of them:
 * not only those the forget changed, since a table also keeps old versions
 * of rows that were updated before (a participant's row moved from sent to
 * viewed), and the events table keeps the rows of appends that rolled back.
 */
const TABLES = [
  'events',
  'templates',
  'partition_templates',
  'sign_requests',
  'participants',
  'quarantine',
  'partitions',
  'effects',
  'skipped',
] as const;

/**
 * The tables {@link vacuumForgotten} vacuums (schema-qualified): those of
 * {@link TABLES} in `schema`, and those of a rebuild or retired schema that
 * `report` counts (`S_rebuild.participants`).
 */
export const forgottenTables = (schema: string, report: ForgetReport): string[] => [
  ...TABLES.map((table) => `${schema}.${table}`),
  ...Object.keys(report.counts).filter((place) => place.includes('.')),
];

/**
 * Runs `VACUUM (FULL, ANALYZE)` on each table of `forgottenTables`,
 * one after the other (see the file comment); returns the tables vacuumed.
 * ANALYZE too: the statistics (`pg_statistic`) keep common values of each
 * column, which may be the name.
 */
export const vacuumForgotten = async (
  pool: SqlPool,
  report: ForgetReport,
  options: VacuumOptions = {},
): Promise<Result<string[], PostgresError>> =>
  safeTry(async function* () {
    const schema = yield* schemaName(options.schema);
    const tables = forgottenTables(schema, report);
    let client: Awaited<ReturnType<typeof checkOut>>;
    try {
      client = await checkOut(pool);
    } catch (cause) {
      return err(databaseError(cause, 'connecting to PostgreSQL'));
    }
    let broken: Error | undefined;
    try {
      const waitMs = options.waitMs ?? 30_000;
      const older = await olderReaders(client, waitMs);
      if (older.length > 0) {
        return err<never, PostgresError>({
          kind: 'database',
          code: undefined,
          retryable: true,
          message: `transactions older than the vacuum still ran after ${waitMs / 1000} s, and VACUUM FULL would keep the old row versions they may read: ${older.join('; ')}; nothing was vacuumed`,
        });
      }
      // SET takes no parameter: the timeout goes in as a literal.
      const lockTimeout = Math.ceil(options.lockTimeoutMs ?? 30_000);
      await client.query(inlined(sql`SET lock_timeout = ${lockTimeout}`));
      for (const table of tables) {
        await send(client, sql`VACUUM (FULL, ANALYZE) ${sql.id(...table.split('.'))}`);
      }
      await client.query('RESET lock_timeout');
      return ok(tables);
    } catch (cause) {
      broken = cause instanceof Error ? cause : new Error(String(cause));
      return err(databaseError(cause, `vacuuming ${tables.join(', ')}`));
    } finally {
      client.release(broken);
    }
  });
