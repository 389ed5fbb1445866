/**
 * `signfold/postgres`: the PostgreSQL adapter. A durable, multi-writer event
 * store and projection tables that applications query with SQL, built on
 * the same core (decoders, reducers, projector) as the file log. Needs the
 * optional peer dependency `pg` (and `pg-copy-streams` for imports).
 */
/**
 * Forgetting a person (GDPR art. 17): their names replaced by a pseudonym in
 * the events (through the one controlled path past the append-only trigger),
 * the projection tables, the quarantine and the effects, and the erasure
 * recorded in the ledger; safe while appends and workers run (docs/privacy.md).
 */
export type { ForgetPostgresOptions } from './forget/forget-postgres.js';
export { forgetPostgres } from './forget/forget-postgres.js';
/** `VACUUM FULL` of the tables a forget rewrote, so no table file keeps the old row versions. */
export type { VacuumOptions } from './forget/vacuum-forgotten.js';
export { vacuumForgotten } from './forget/vacuum-forgotten.js';
export type { ImportOptions, ImportOutcome } from './log/import-events.js';
export { importRecords } from './log/import-events.js';
export type { PostgresEventLog, PostgresEventLogOptions } from './log/postgres-event-log.js';
export { openPostgresEventLog } from './log/postgres-event-log.js';
export type { SkipOptions, SkipOutcome } from './log/skip-position.js';
export { DEFAULT_SKIP_REASON, skipPosition } from './log/skip-position.js';
export type { PostgresError } from './postgres-error.js';
export type {
  PartitionStatus,
  ProjectionStatus,
  WorkerStatus,
} from './read/partition-status.js';
export { readProjectionStatus } from './read/partition-status.js';
export type { StoredProjections, StoredQuarantineEntry } from './read/read-projections.js';
export { readProjections } from './read/read-projections.js';
export type { MigrateOptions, MigrateOutcome, SchemaOptions } from './schema/migrate.js';
export { checkSchemaVersion, DEFAULT_PARTITIONS, migrate } from './schema/migrate.js';
export { SCHEMA_VERSION } from './schema/migrations.js';
export { DEFAULT_SCHEMA } from './schema-name.js';
export type {
  PreparedQuery,
  SqlPool,
  SqlPoolClient,
  SqlQueryable,
  SqlResult,
} from './sql-client.js';
export type {
  ProjectionWorker,
  ProjectionWorkerOptions,
  WorkerProgress,
} from './worker/projection-worker.js';
export { createProjectionWorker } from './worker/projection-worker.js';
