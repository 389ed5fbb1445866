/**
 * Skipping one stored event that a worker cannot project (`signfold pg
 * skip`): the supported way past a batch the database refuses for a reason
 * nobody foresaw. The event is not deleted (the store is append-only): its
 * position is recorded in the `skipped` table, and every partition that has
 * not yet projected it reads it as a bad line, so it is quarantined, counted
 * once as invalid, and visible (`skipped with signfold pg skip: …`).
 *
 * Safe while workers run: the skip locks the rows of the partitions that
 * read the event, as a worker's write does before anything else, so either
 * the worker's batch commits first (and the skip sees the event projected)
 * or the skip does (and the worker, which checks for skips under the same
 * lock, folds its batch again). Two skips of one position take turns on the
 * same locks; the second finds it skipped.
 */

import { err, ok, type Result, safeTry } from 'neverthrow';
import { sqlText } from '../event-routing.js';
import { databaseError, type PostgresError } from '../postgres-error.js';
import { checkSchema, type SchemaOptions } from '../schema/migrate.js';
import { EVERY_PARTITION } from '../schema/migration-partitions.js';
import { type SchemaName, schemaName } from '../schema-name.js';
import { send } from '../sql/send.js';
import { sql } from '../sql/sql.js';
import { connect, rollBack, type SqlPool, type SqlPoolClient } from '../sql-client.js';

/** Options of {@link skipPosition}. */
export interface SkipOptions extends SchemaOptions {
  /** Why, shown in the quarantine message (default: `the worker could not project it`). */
  readonly reason?: string;
}

/** What {@link skipPosition} did. */
export type SkipOutcome =
  /** Recorded: the partitions listed will quarantine it instead of projecting it. */
  | { readonly kind: 'skipped'; readonly position: number; readonly partitions: readonly number[] }
  /** It was skipped before: nothing changed. */
  | { readonly kind: 'already-skipped'; readonly position: number }
  /** Every partition that reads it has projected it already: nothing to skip, nothing changed. */
  | { readonly kind: 'already-projected'; readonly position: number };

/** The default reason of a skip. */
export const DEFAULT_SKIP_REASON = 'the worker could not project it';

/** {@link skipPosition} once the checks passed, on a client of its own (released here). */
const skipOn = async (
  client: SqlPoolClient,
  schema: SchemaName,
  position: number,
  options: SkipOptions,
): Promise<Result<SkipOutcome, PostgresError>> => {
  try {
    await client.query('BEGIN');
    const event = await send<{ partition: number }>(
      client,
      sql`SELECT partition FROM ${sql.id(schema, 'events')} WHERE position = ${position}`,
    );
    const partition = event.rows[0]?.partition;
    if (partition === undefined) {
      await client.query('ROLLBACK');
      client.release();
      return err({
        kind: 'invalid-option',
        message: `no event at position ${position} in ${schema}.events`,
      });
    }
    // In partition order, as every locker of several rows here: no deadlock.
    const readers = await send<{ partition: number; position: string }>(
      client,
      sql`SELECT partition, position FROM ${sql.id(schema, 'partitions')}
           WHERE ${partition === EVERY_PARTITION} OR partition = ${partition}
           ORDER BY partition FOR UPDATE`,
    );
    const pending = readers.rows
      .filter((row) => Number(row.position) < position)
      .map((row) => row.partition);
    const reason = sqlText(options.reason ?? DEFAULT_SKIP_REASON);
    const inserted = await send(
      client,
      sql`INSERT INTO ${sql.id(schema, 'skipped')} (position, reason) VALUES (${position}, ${reason})
       ON CONFLICT (position) DO NOTHING`,
    );
    if (inserted.rowCount !== 1 || pending.length === 0) {
      await client.query('ROLLBACK');
      client.release();
      return ok({
        kind: inserted.rowCount !== 1 ? 'already-skipped' : 'already-projected',
        position,
      });
    }
    await client.query('COMMIT');
    client.release();
    return ok({ kind: 'skipped', position, partitions: pending });
  } catch (cause) {
    client.release(await rollBack(client, cause));
    return err(databaseError(cause, `skipping position ${position} of ${schema}.events`));
  }
};

/**
 * Skips the stored event at `position` (see the file comment). An error
 * when there is no event there (`invalid-option`) or the database fails.
 */
export const skipPosition = async (
  pool: SqlPool,
  position: number,
  options: SkipOptions = {},
): Promise<Result<SkipOutcome, PostgresError>> =>
  safeTry(async function* () {
    const schema = yield* schemaName(options.schema);
    if (!Number.isSafeInteger(position) || position < 1) {
      return err<never, PostgresError>({
        kind: 'invalid-option',
        message: `position must be a positive integer (got ${position})`,
      });
    }
    yield* await checkSchema(pool, schema);
    const client = yield* await connect(pool);
    return await skipOn(client, schema, position, options);
  });
