import { err, ok, type Result, safeTry } from 'neverthrow';
import { databaseError, type PostgresError } from '../postgres-error.js';
import { type SchemaName, schemaName } from '../schema-name.js';
import { connect, type SqlPool, type SqlPoolClient, type SqlQueryable } from '../sql-client.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';

/** Options of {@link migrate} and of everything that opens a schema. */
export interface SchemaOptions {
  /** The PostgreSQL schema holding signfold's tables (default `signfold`); a plain lower-case identifier. */
  readonly schema?: string;
}

/** Options of {@link migrate}. */
export interface MigrateOptions extends SchemaOptions {
  /**
   * The number of partitions of the projection (1–1024, default
   * {@link DEFAULT_PARTITIONS}): how many workers can share the work. Fixed
   * once the schema reaches version 2; a different number is refused.
   */
  readonly partitions?: number;
}

/** The partitions of a schema migrated without `partitions`. */
export const DEFAULT_PARTITIONS = 16;

/** What {@link migrate} did. */
export interface MigrateOutcome {
  readonly schema: string;
  /** The version found (0: no schema yet). */
  readonly from: number;
  /** The version now, {@link SCHEMA_VERSION}. */
  readonly to: number;
  /** The number of partitions of the projection. */
  readonly partitions: number;
}

const tooNew = (schema: SchemaName, found: number): PostgresError => ({
  kind: 'schema-too-new',
  schema,
  found,
  supported: SCHEMA_VERSION,
  message: `schema ${schema} is at version ${found}, newer than this signfold supports (${SCHEMA_VERSION}): upgrade signfold`,
});

/** Reads the recorded version; 0 when the schema or its version table does not exist. */
const versionOf = async (db: SqlQueryable, schema: SchemaName): Promise<number> => {
  const table = await db.query<{ exists: boolean }>(
    'SELECT to_regclass($1) IS NOT NULL AS exists',
    [`${schema}.schema_version`],
  );
  if (table.rows[0]?.exists !== true) return 0;
  const found = await db.query<{ version: number }>(`SELECT version FROM ${schema}.schema_version`);
  return found.rows[0]?.version ?? 0;
};

/**
 * Migrates `schema` from the version found to {@link SCHEMA_VERSION} in the
 * caller's open transaction on `client` (which commits or rolls back), taking
 * the schema's migration lock first: `migrate` itself, and `pg rebuild`,
 * which must create its schema and reshape it in one transaction (a crash
 * between the two would leave a schema nobody can tell from a user's).
 */
export const migrateInTransaction = async (
  client: SqlQueryable,
  schema: SchemaName,
  wanted: number | undefined,
): Promise<Result<MigrateOutcome, PostgresError>> => {
  await client.query("SELECT pg_advisory_xact_lock(hashtext('signfold.migrate'), hashtext($1))", [
    schema,
  ]);
  const from = await versionOf(client, schema);
  if (from > SCHEMA_VERSION) return err(tooNew(schema, from));
  if (from === 0) {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      `CREATE TABLE ${schema}.schema_version (
         singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
         version integer NOT NULL,
         migrated_at timestamptz NOT NULL DEFAULT now())`,
    );
  }
  const settings = { partitions: wanted ?? DEFAULT_PARTITIONS };
  for (let version = from + 1; version <= SCHEMA_VERSION; version += 1) {
    await client.query(MIGRATIONS[version - 1]?.(schema, settings) ?? '');
  }
  const partitions = await partitionCount(client, schema);
  if (wanted !== undefined && partitions !== wanted) {
    return err({
      kind: 'invalid-option',
      message: `schema ${schema} has ${partitions} partitions, fixed when it was created: it cannot get ${wanted} (migrate a new schema and rebuild there)`,
    });
  }
  await client.query(
    `INSERT INTO ${schema}.schema_version (version) VALUES ($1)
     ON CONFLICT (singleton) DO UPDATE SET version = EXCLUDED.version, migrated_at = now()`,
    [SCHEMA_VERSION],
  );
  return ok({ schema, from, to: SCHEMA_VERSION, partitions });
};

/** {@link migrate} once the options are checked, on a client of its own (released here). */
const migrateOn = async (
  client: SqlPoolClient,
  schema: SchemaName,
  wanted: number | undefined,
): Promise<Result<MigrateOutcome, PostgresError>> => {
  try {
    await client.query('BEGIN');
    const migrated = await migrateInTransaction(client, schema, wanted);
    await client.query(migrated.isOk() ? 'COMMIT' : 'ROLLBACK');
    return migrated;
  } catch (cause) {
    await client.query('ROLLBACK').catch(() => undefined);
    return err(databaseError(cause, `migrating schema ${schema}`));
  } finally {
    client.release();
  }
};

/**
 * Creates or upgrades the schema to {@link SCHEMA_VERSION}, in one
 * transaction: idempotent (a current schema is left alone), safe when
 * several processes migrate at once (they take turns on an advisory lock),
 * and refusing (`schema-too-new`) a schema a newer signfold migrated.
 */
export const migrate = async (
  pool: SqlPool,
  options: MigrateOptions = {},
): Promise<Result<MigrateOutcome, PostgresError>> =>
  safeTry(async function* () {
    const schema = yield* schemaName(options.schema);
    const wanted = options.partitions;
    if (wanted !== undefined && (!Number.isSafeInteger(wanted) || wanted < 1 || wanted > 1024)) {
      return err<never, PostgresError>({
        kind: 'invalid-option',
        message: `partitions must be an integer from 1 to 1024 (got ${wanted})`,
      });
    }
    const client = yield* await connect(pool);
    return await migrateOn(client, schema, wanted);
  });

/** The number of partitions of a schema at version 2 or later. */
export const partitionCount = async (db: SqlQueryable, schema: SchemaName): Promise<number> => {
  const found = await db.query<{ partitions: number }>(
    `SELECT partitions FROM ${schema}.partition_count`,
  );
  return found.rows[0]?.partitions ?? 1;
};

/**
 * Checks that the schema exists at exactly {@link SCHEMA_VERSION}, as every
 * reader and writer does before its first statement.
 */
export const checkSchema = async (
  db: SqlQueryable,
  schema: SchemaName,
): Promise<Result<void, PostgresError>> => {
  let found: number;
  try {
    found = await versionOf(db, schema);
  } catch (cause) {
    return err(databaseError(cause, `reading the version of schema ${schema}`));
  }
  if (found === SCHEMA_VERSION) return ok(undefined);
  if (found === 0) {
    return err({
      kind: 'schema-missing',
      schema,
      message: `no signfold schema ${schema} in this database: run \`signfold pg migrate\` (or migrate()) first`,
    });
  }
  if (found > SCHEMA_VERSION) return err(tooNew(schema, found));
  return err({
    kind: 'schema-too-old',
    schema,
    found,
    supported: SCHEMA_VERSION,
    message: `schema ${schema} is at version ${found}, older than this signfold (${SCHEMA_VERSION}): run \`signfold pg migrate\``,
  });
};

/**
 * Checks, without changing anything, that the schema is at the version this
 * code reads and writes (`schema-missing`, `schema-too-old`, `schema-too-new`).
 */
export const checkSchemaVersion = async (
  db: SqlQueryable,
  options: SchemaOptions = {},
): Promise<Result<void, PostgresError>> =>
  safeTry(async function* () {
    const schema = yield* schemaName(options.schema);
    return await checkSchema(db, schema);
  });
