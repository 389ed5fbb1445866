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
 */
import { err, ok, type Result, safeTry } from 'neverthrow';
import type { ForgetReport } from '../../engine/forget-report.js';
import { databaseError, type PostgresError } from '../postgres-error.js';
import type { SchemaOptions } from '../schema/migrate.js';
import { schemaName } from '../schema-name.js';
import { send } from '../sql/send.js';
import { sql } from '../sql/sql.js';
import { inlined } from '../sql/sql-literal.js';
import { checkOut, type SqlPool } from '../sql-client.js';

/** Options of {@link vacuumForgotten}. */
export interface VacuumOptions extends SchemaOptions {
  /** How long to wait for each table's lock, in ms (default 30,000): past it, an error. */
  readonly lockTimeoutMs?: number;
}

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
