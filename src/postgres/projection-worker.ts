/**
 * The projection worker: reads the events after its checkpoint in batches,
 * folds each batch with the core projector (the same decoders, reducers and
 * status rules as everywhere), and writes the changed rows, the quarantined
 * records and the new checkpoint in one transaction. A crash between two
 * batches loses nothing and repeats nothing; two workers on one schema take
 * turns batch by batch (the checkpoint row is locked for the transaction).
 */
import { err, ok, type Result } from 'neverthrow';
import type { LogRecord } from '../engine/event-log.js';
import { createProjector } from '../engine/projector.js';
import type { ProjectorStats } from '../engine/projector-types.js';
import { type EventRow, recordOfRow, selectEventsSql } from './event-rows.js';
import { checkSchema, type SchemaOptions } from './migrate.js';
import { databaseError, type PostgresError } from './postgres-error.js';
import { loadRecords, type RecordKeys, writeChanges } from './projection-tables.js';
import { writeQuarantine } from './quarantine-table.js';
import { type SchemaName, schemaName } from './schema-name.js';
import { checkOut, type SqlPool, type SqlQueryable } from './sql-client.js';

/** Options of {@link createProjectionWorker}. */
export interface ProjectionWorkerOptions extends SchemaOptions {
  /** Events per transaction (default 5,000). */
  readonly batchSize?: number;
  /** Decode events in strict mode (unknown members rejected), as `createProjector`. Default `false`. */
  readonly strict?: boolean;
}

/** Where the worker stands after a batch. */
export interface WorkerProgress extends ProjectorStats {
  /** The last position projected (0 before any). */
  readonly checkpoint: number;
  /** Records processed by this call (0: nothing new). */
  readonly processed: number;
}

/** A projection worker bound to one schema. */
export interface ProjectionWorker {
  /** Projects the next batch (at most `batchSize` events) in one transaction. */
  runBatch(): Promise<Result<WorkerProgress, PostgresError>>;
  /** Runs batches until every event stored when the last batch began is projected. */
  drain(
    onBatch?: (progress: WorkerProgress) => void,
  ): Promise<Result<WorkerProgress, PostgresError>>;
}

/** The checkpoint row's name: one set of projection tables per schema. */
export const PROJECTION_NAME = 'signfold';

interface CheckpointRow {
  readonly position: string;
  readonly applied: string;
  readonly no_ops: string;
  readonly conflicts: string;
  readonly invalid: string;
  readonly already_applied: string;
}

/** The records the events of a batch may read; ids taken leniently from the raw values. */
const keysOf = (records: readonly LogRecord[]): RecordKeys => {
  const templates = new Set<number>();
  const signRequests = new Set<number>();
  const participantsOf = new Set<number>();
  for (const record of records) {
    if (record.kind !== 'entry') continue;
    const event = record.event;
    if (typeof event !== 'object' || event === null) continue;
    const { templateId, signRequestId, participantId } = event as Record<string, unknown>;
    if (typeof templateId === 'number') templates.add(templateId);
    if (typeof signRequestId === 'number') {
      signRequests.add(signRequestId);
      if (participantId !== undefined) participantsOf.add(signRequestId);
    }
  }
  return { templates, signRequests, participantsOf };
};

const statsOf = (row: CheckpointRow): ProjectorStats => ({
  applied: Number(row.applied),
  noOps: Number(row.no_ops),
  conflicts: Number(row.conflicts),
  invalid: Number(row.invalid),
  alreadyApplied: Number(row.already_applied),
});

const projectBatch = async (
  db: SqlQueryable,
  schema: SchemaName,
  batchSize: number,
  strict: boolean,
): Promise<WorkerProgress> => {
  await db.query(
    `INSERT INTO ${schema}.checkpoints VALUES ($1, 0, 0, 0, 0, 0, 0, now()) ON CONFLICT DO NOTHING`,
    [PROJECTION_NAME],
  );
  const locked = await db.query<CheckpointRow>(
    `SELECT * FROM ${schema}.checkpoints WHERE projection = $1 FOR UPDATE`,
    [PROJECTION_NAME],
  );
  const row = locked.rows[0] as CheckpointRow;
  const checkpoint = Number(row.position);
  const stats = statsOf(row);
  const events = await db.query<EventRow>(selectEventsSql(schema), [checkpoint + 1, batchSize]);
  if (events.rows.length === 0) return { ...stats, checkpoint, processed: 0 };
  const records = events.rows.map(recordOfRow);
  const before = await loadRecords(db, schema, keysOf(records));
  const projector = createProjector(
    { policy: 'skip', audit: false, strict },
    { state: before, checkpoint, stats },
  );
  for (const record of records) projector.applyRecord(record);
  await writeChanges(db, schema, before, projector.state());
  await writeQuarantine(db, schema, projector.quarantine());
  const after = projector.stats();
  await db.query(
    `UPDATE ${schema}.checkpoints SET position = $2, applied = $3, no_ops = $4, conflicts = $5,
       invalid = $6, already_applied = $7, updated_at = now() WHERE projection = $1`,
    [
      PROJECTION_NAME,
      projector.checkpoint,
      after.applied,
      after.noOps,
      after.conflicts,
      after.invalid,
      after.alreadyApplied,
    ],
  );
  return { ...after, checkpoint: projector.checkpoint, processed: records.length };
};

/**
 * Creates a worker on a migrated schema (`schema-missing` and the version
 * errors otherwise). Throws `RangeError` on a batch size that is not a
 * positive integer.
 */
export const createProjectionWorker = async (
  pool: SqlPool,
  options: ProjectionWorkerOptions = {},
): Promise<Result<ProjectionWorker, PostgresError>> => {
  const named = schemaName(options.schema);
  if (named.isErr()) return err(named.error);
  const schema = named.value;
  const batchSize = options.batchSize ?? 5000;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
    throw new RangeError(`batchSize must be a positive integer (got ${batchSize})`);
  }
  const strict = options.strict ?? false;
  const checked = await checkSchema(pool, schema);
  if (checked.isErr()) return err(checked.error);

  const runBatch = async (): Promise<Result<WorkerProgress, PostgresError>> => {
    let client: Awaited<ReturnType<SqlPool['connect']>>;
    try {
      client = await checkOut(pool);
    } catch (cause) {
      return err(databaseError(cause, 'connecting to PostgreSQL'));
    }
    try {
      await client.query('BEGIN');
      const progress = await projectBatch(client, schema, batchSize, strict);
      await client.query('COMMIT');
      client.release();
      return ok(progress);
    } catch (cause) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(cause instanceof Error ? cause : true);
      return err(databaseError(cause, `projecting a batch of ${schema}.events`));
    }
  };

  const drain = async (
    onBatch?: (progress: WorkerProgress) => void,
  ): Promise<Result<WorkerProgress, PostgresError>> => {
    let processed = 0;
    for (;;) {
      const batch = await runBatch();
      if (batch.isErr()) return batch;
      processed += batch.value.processed;
      if (batch.value.processed === 0) return ok({ ...batch.value, processed });
      onBatch?.({ ...batch.value, processed });
    }
  };

  return ok({ runBatch, drain });
};
