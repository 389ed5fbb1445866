/**
 * The schema `pg rebuild` builds beside a live schema S: `S_rebuild`,
 * migrated as any schema (same partitions as S), whose `events` and
 * `skipped` are views of S's, so that unchanged projection workers fold S's
 * events and S's skip decisions into new projection tables while S keeps
 * serving. It has no reactor tables (no reactor runs in a rebuild), and its
 * comment records what it rebuilds and with which upcasters, so that an
 * interrupted rebuild is resumed only under the same rules.
 */
import { err, ok, type Result } from 'neverthrow';
import { databaseError, type PostgresError, sqlState } from '../postgres-error.js';
import { checkSchema, migrateInTransaction, partitionCount } from '../schema/migrate.js';
import { type SchemaName, schemaName } from '../schema-name.js';
import { sql } from '../sql/sql.js';
import { inlined } from '../sql/sql-literal.js';
import {
  checkOut,
  querySeveral,
  rollBack,
  type SqlPool,
  type SqlQueryable,
} from '../sql-client.js';

/** The suffix of a rebuild schema's name. */
export const REBUILD_SUFFIX = '_rebuild';

/** What a rebuild schema's comment says (JSON). */
interface RebuildMark {
  readonly signfoldRebuildOf: string;
  readonly upcasters: readonly string[];
}

/** What {@link prepareRebuild} found and did. */
export interface PreparedRebuild {
  /** The live schema. */
  readonly live: SchemaName;
  /** The rebuild schema. */
  readonly rebuild: SchemaName;
  readonly partitions: number;
  /**
   * `created`: a new rebuild; `resumed`: one left by an earlier run with the
   * same upcasters; `restarted`: one made with other upcasters, dropped.
   */
  readonly how: 'created' | 'resumed' | 'restarted';
  /** For `restarted`: the upcasters the dropped one was built with. */
  readonly previousUpcasters?: readonly string[];
}

/** The rebuild schema's name for live schema `live`, validated as any schema name. */
export const rebuildSchemaOf = (live: SchemaName): Result<SchemaName, PostgresError> =>
  schemaName(`${live}${REBUILD_SUFFIX}`).mapErr(() => ({
    kind: 'invalid-option' as const,
    message: `schema ${live} is too long to rebuild beside: ${live}${REBUILD_SUFFIX} must be at most 63 characters`,
  }));

const markOf = (comment: string | null): RebuildMark | undefined => {
  if (comment === null) return undefined;
  try {
    const mark = JSON.parse(comment) as Partial<RebuildMark>;
    return typeof mark.signfoldRebuildOf === 'string' && Array.isArray(mark.upcasters)
      ? { signfoldRebuildOf: mark.signfoldRebuildOf, upcasters: mark.upcasters.map(String) }
      : undefined;
  } catch {
    return undefined;
  }
};

/** The comment of schema `name`; `undefined` when there is no such schema (`null`: no comment). */
const commentOf = async (db: SqlQueryable, name: string): Promise<string | null | undefined> => {
  const { rows } = await db.query<{ comment: string | null }>(
    `SELECT obj_description(oid, 'pg_namespace') AS comment FROM pg_namespace WHERE nspname = $1`,
    [name],
  );
  return rows.length === 0 ? undefined : (rows[0]?.comment ?? null);
};

/** Creates `rebuild` for `live` (see the file comment), in the caller's transaction. */
const createRebuild = async (
  db: SqlQueryable,
  live: SchemaName,
  rebuild: SchemaName,
  partitions: number,
  upcasters: readonly string[],
): Promise<Result<void, PostgresError>> => {
  const migrated = await migrateInTransaction(db, rebuild, partitions);
  if (migrated.isErr()) return err(migrated.error);
  const mark: RebuildMark = { signfoldRebuildOf: live, upcasters };
  const at = (table: string) => sql.id(rebuild, table);
  // One text, one round trip; COMMENT takes no parameter, so the mark goes in as a literal.
  const statements = [
    sql`DROP TABLE ${at('events')} CASCADE`,
    sql`CREATE VIEW ${at('events')} AS SELECT * FROM ${sql.id(live, 'events')}`,
    sql`DROP TABLE ${at('skipped')} CASCADE`,
    sql`CREATE VIEW ${at('skipped')} AS SELECT * FROM ${sql.id(live, 'skipped')}`,
    sql`DROP TABLE ${at('reactor_progress')}, ${at('effects')}, ${at('reactor_redo')} CASCADE`,
    sql`COMMENT ON SCHEMA ${sql.id(rebuild)} IS ${JSON.stringify(mark)}`,
  ];
  await querySeveral(db, statements.map(inlined));
  return ok(undefined);
};

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((name, i) => name === b[i]);

/**
 * Makes the rebuild schema of `liveName` ready for workers: creates it, or
 * resumes the one an interrupted rebuild left when it was made with the same
 * `upcasters` (by name, in order), or drops one made with others and starts
 * over. Refuses (`invalid-option`) a schema of that name that signfold's
 * rebuild did not make. Processes that start at once take turns on the
 * schema's migration lock: one creates, the others resume; one that waits
 * longer than its session's `lock_timeout` tries again, for up to `waitMs`
 * in all ({@link PREPARE_WAIT_MS} by default).
 */
export const prepareRebuild = async (
  pool: SqlPool,
  liveName: string | undefined,
  upcasters: readonly string[],
  waitMs: number = PREPARE_WAIT_MS,
): Promise<Result<PreparedRebuild, PostgresError>> => {
  const live = schemaName(liveName);
  if (live.isErr()) return err(live.error);
  const rebuild = rebuildSchemaOf(live.value);
  if (rebuild.isErr()) return err(rebuild.error);
  const checked = await checkSchema(pool, live.value);
  if (checked.isErr()) return err(checked.error);
  // Each attempt's lock wait is bounded by the session's lock_timeout, which a worker's pool
  // derives from its lease (2.5 s for a 1 s lease). Making the schema may take longer than that
  // on a loaded machine: the processes that wait for it try again, up to `waitMs` in all.
  const deadline = Date.now() + waitMs;
  for (;;) {
    const attempt = await prepareOnce(pool, live.value, rebuild.value, upcasters);
    if (attempt.isOk()) return ok(attempt.value);
    if (attempt.error !== LOCK_BUSY) return err(attempt.error);
    if (Date.now() >= deadline) {
      return err({
        kind: 'database',
        code: '55P03',
        retryable: true,
        message: `preparing schema ${rebuild.value}: another process held its preparation for over ${Math.round(waitMs / 1000)} s`,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, PREPARE_RETRY_MS));
  }
};

/**
 * How long {@link prepareRebuild} waits in all for another process that is
 * making the same rebuild schema (ms).
 */
export const PREPARE_WAIT_MS = 120_000;

/** The pause between two attempts to take the preparation's lock (ms). */
const PREPARE_RETRY_MS = 200;

/** An attempt found the preparation's lock held past the session's lock_timeout. */
const LOCK_BUSY = Symbol('lock busy');

/** One transaction of {@link prepareRebuild}. */
const prepareOnce = async (
  pool: SqlPool,
  live: SchemaName,
  rebuild: SchemaName,
  upcasters: readonly string[],
): Promise<Result<PreparedRebuild, PostgresError | typeof LOCK_BUSY>> => {
  let client: Awaited<ReturnType<typeof checkOut>>;
  try {
    client = await checkOut(pool);
  } catch (cause) {
    return err(databaseError(cause, 'connecting to PostgreSQL'));
  }
  let broken: Error | true | undefined;
  try {
    await client.query('BEGIN');
    const prepared = await prepareIn(client, live, rebuild, upcasters);
    await client.query(prepared.isOk() ? 'COMMIT' : 'ROLLBACK');
    return prepared;
  } catch (cause) {
    broken = await rollBack(client, cause);
    // 55P03 lock_not_available: the session's lock_timeout ran out, waiting for another process.
    if (sqlState(cause) === '55P03') return err(LOCK_BUSY);
    return err(databaseError(cause, `preparing schema ${rebuild}`));
  } finally {
    client.release(broken);
  }
};

/** {@link prepareRebuild} in an open transaction on `db`. */
const prepareIn = async (
  db: SqlQueryable,
  live: SchemaName,
  rebuild: SchemaName,
  upcasters: readonly string[],
): Promise<Result<PreparedRebuild, PostgresError>> => {
  await db.query("SELECT pg_advisory_xact_lock(hashtext('signfold.migrate'), hashtext($1))", [
    rebuild,
  ]);
  const partitions = await partitionCount(db, live);
  const comment = await commentOf(db, rebuild);
  const base = { live, rebuild, partitions };
  if (comment === undefined) {
    const created = await createRebuild(db, live, rebuild, partitions, upcasters);
    return created.map(() => ({ ...base, how: 'created' as const }));
  }
  const mark = markOf(comment);
  if (mark === undefined || mark.signfoldRebuildOf !== live) {
    return err({
      kind: 'invalid-option',
      message: `schema ${rebuild} exists and is not a rebuild of ${live} made by signfold pg rebuild: drop it, or rebuild another schema`,
    });
  }
  if (sameList(mark.upcasters, upcasters) && (await checkSchema(db, rebuild)).isOk()) {
    return ok({ ...base, how: 'resumed' });
  }
  await db.query(`DROP SCHEMA ${rebuild} CASCADE`);
  const created = await createRebuild(db, live, rebuild, partitions, upcasters);
  return created.map(() => ({
    ...base,
    how: 'restarted' as const,
    previousUpcasters: mark.upcasters,
  }));
};
