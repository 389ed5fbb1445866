/**
 * `signfold/postgres`: the PostgreSQL adapter. A durable, multi-writer event
 * store and projection tables that applications query with SQL, built on
 * the same core (decoders, reducers, projector) as the file log. Needs the
 * optional peer dependency `pg` (and `pg-copy-streams` for imports).
 */
export type { ImportOptions, ImportOutcome } from './import-events.js';
export { importRecords } from './import-events.js';
export type { MigrateOptions, MigrateOutcome, SchemaOptions } from './migrate.js';
export { checkSchemaVersion, DEFAULT_PARTITIONS, migrate } from './migrate.js';
export { SCHEMA_VERSION } from './migrations.js';
export type {
  PartitionStatus,
  ProjectionStatus,
  WorkerStatus,
} from './partition-status.js';
export { readProjectionStatus } from './partition-status.js';
export type { PostgresError } from './postgres-error.js';
export type { PostgresEventLog, PostgresEventLogOptions } from './postgres-event-log.js';
export { openPostgresEventLog } from './postgres-event-log.js';
export type {
  ProjectionWorker,
  ProjectionWorkerOptions,
  WorkerProgress,
} from './projection-worker.js';
export { createProjectionWorker } from './projection-worker.js';
export type { StoredProjections, StoredQuarantineEntry } from './read-projections.js';
export { readProjections } from './read-projections.js';
export { DEFAULT_SCHEMA } from './schema-name.js';
export type { SkipOptions, SkipOutcome } from './skip-position.js';
export { DEFAULT_SKIP_REASON, skipPosition } from './skip-position.js';
export type { SqlPool, SqlPoolClient, SqlQueryable, SqlResult } from './sql-client.js';
