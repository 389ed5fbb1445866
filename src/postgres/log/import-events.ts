/**
 * Bulk import of log records (e.g. a file log read with `readFileEventLog`)
 * through `COPY` straight into the events table, in one transaction that
 * holds the append lock from its start: all of it is stored or none. Lines
 * with a delivery id already stored are skipped, so importing the same log
 * twice stores those once; lines without one have no identity and are
 * stored again (see docs/postgres.md).
 */
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { err, ok, type Result, safeTry } from 'neverthrow';
import type { ErasureLedger } from '../../core/privacy/erasure-ledger.js';
import type { LogRecord } from '../../engine/event-log.js';
import { EventLogReadError } from '../../engine/log-errors.js';
import { sqlText } from '../event-routing.js';
import { readLedgerRows } from '../forget/erasure-rows.js';
import { databaseError, type PostgresError, sqlState } from '../postgres-error.js';
import { checkSchema, type SchemaOptions } from '../schema/migrate.js';
import { appendLockSql } from '../schema/migrations.js';
import { type SchemaName, schemaName } from '../schema-name.js';
import { connect, rollBack, type SqlPool, type SqlPoolClient } from '../sql-client.js';
import { IMPORT_COLUMNS, importRow } from './import-rows.js';
import { storedPositions } from './store-records.js';

/** Options of {@link importRecords}. */
export interface ImportOptions extends SchemaOptions {
  /** Called after each batch of records is sent, with the number sent so far. */
  readonly onProgress?: (records: number) => void;
}

/** What an import stored. */
export interface ImportOutcome {
  /** Records read (entries and bad lines; an unterminated last line is not counted). */
  readonly read: number;
  /** Rows stored. */
  readonly imported: number;
  /** Entries skipped because their delivery id was already stored (or earlier in the input). */
  readonly duplicates: number;
  /** Bad lines stored as such (the worker quarantines them). */
  readonly badLines: number;
  /** An unterminated last line that does not parse was left out (it is not data yet). */
  readonly tornTail: boolean;
}

type CopyFrom = (sql: string) => Writable;

const loadCopyFrom = async (): Promise<Result<CopyFrom, PostgresError>> => {
  try {
    const module = (await import('pg-copy-streams')) as { from: CopyFrom };
    return ok(module.from);
  } catch {
    return err({
      kind: 'invalid-option',
      message: 'importing needs the package pg-copy-streams: npm install pg-copy-streams',
    });
  }
};

const UNIQUE_VIOLATION = '23505';

/** Rows per duplicate check and `COPY` statement: small enough to die young in the heap. */
const BATCH_ROWS = 5_000;
/** Characters per write to the `COPY` stream. */
const CHUNK_CHARS = 1 << 16;

/** Rows to copy, and the delivery id of each (as stored, see `sqlText`). */
interface RowBatch {
  readonly ids: (string | undefined)[];
  readonly rows: string[];
}

interface Counts {
  read: number;
  badLines: number;
  tornTail: boolean;
}

/** The records as batches of rows, at least {@link BATCH_ROWS} each but the last. */
async function* rowBatches(
  records: AsyncIterable<readonly LogRecord[]>,
  counts: Counts,
  onProgress: ((records: number) => void) | undefined,
  ledger: ErasureLedger,
): AsyncGenerator<RowBatch> {
  const erase = (eventJson: string): string => ledger.eraseOnAppend(eventJson);
  let batch: RowBatch = { ids: [], rows: [] };
  for await (const read of records) {
    for (const record of read) {
      if (record.kind === 'bad-line' && record.tornTail === true) {
        counts.tornTail = true;
        continue;
      }
      counts.read += 1;
      if (record.kind === 'bad-line') counts.badLines += 1;
      const id = record.kind === 'entry' ? record.deliveryId : undefined;
      batch.ids.push(id === undefined ? undefined : sqlText(id));
      batch.rows.push(importRow(record, erase));
      if (batch.rows.length >= BATCH_ROWS) {
        yield batch;
        batch = { ids: [], rows: [] };
      }
    }
    onProgress?.(counts.read);
  }
  if (batch.rows.length > 0) yield batch;
}

/** Delivery ids of `batch` that the store holds (this transaction's own rows included). */
const storedIds = async (
  client: SqlPoolClient,
  schema: SchemaName,
  batch: RowBatch,
): Promise<Set<string>> => {
  const ids = batch.ids.filter((id) => id !== undefined);
  return new Set((await storedPositions(client, schema, ids)).keys());
};

/** Copies the rows whose delivery id is neither in `stored` nor earlier in the batch. */
const copyRows = async (
  client: SqlPoolClient,
  schema: SchemaName,
  copyFrom: CopyFrom,
  batch: RowBatch,
  stored: ReadonlySet<string>,
): Promise<number> => {
  const taken = new Set<string>();
  const chunks: string[] = [];
  let chunk = '';
  let copied = 0;
  for (let i = 0; i < batch.rows.length; i += 1) {
    const id = batch.ids[i];
    if (id !== undefined) {
      if (stored.has(id) || taken.has(id)) continue;
      taken.add(id);
    }
    chunk += batch.rows[i];
    copied += 1;
    if (chunk.length >= CHUNK_CHARS) {
      chunks.push(chunk);
      chunk = '';
    }
  }
  if (chunk !== '') chunks.push(chunk);
  if (copied === 0) return 0;
  const copy = (client as unknown as { query(stream: Writable): Writable }).query(
    copyFrom(`COPY ${schema}.events (${IMPORT_COLUMNS}) FROM STDIN`),
  );
  await pipeline(Readable.from(chunks), copy);
  return copied;
};

/**
 * Copies a batch optimistically; when a delivery id is already stored (a
 * re-import, a line repeated further down the file), undoes the attempt and
 * copies what the store lacks. A fresh import thus never pays for the check.
 */
const copyBatch = async (
  client: SqlPoolClient,
  schema: SchemaName,
  copyFrom: CopyFrom,
  batch: RowBatch,
): Promise<number> => {
  await client.query('SAVEPOINT signfold_import_batch');
  try {
    const copied = await copyRows(client, schema, copyFrom, batch, new Set());
    await client.query('RELEASE SAVEPOINT signfold_import_batch');
    return copied;
  } catch (cause) {
    if (sqlState(cause) !== UNIQUE_VIOLATION) throw cause;
  }
  await client.query('ROLLBACK TO SAVEPOINT signfold_import_batch');
  return copyRows(client, schema, copyFrom, batch, await storedIds(client, schema, batch));
};

const copyAll = async (
  client: SqlPoolClient,
  schema: SchemaName,
  copyFrom: CopyFrom,
  records: AsyncIterable<readonly LogRecord[]>,
  options: ImportOptions,
): Promise<ImportOutcome> => {
  const counts: Counts = { read: 0, badLines: 0, tornTail: false };
  let imported = 0;
  await client.query('BEGIN');
  // Held to commit: no other writer stores a delivery id between a check below and its COPY.
  await client.query(`SELECT ${appendLockSql(schema)}`);
  // Read under the lock: a forget that committed before it is seen, and none commits until this does.
  const { ledger } = await readLedgerRows(client, schema);
  const batches = rowBatches(records, counts, options.onProgress, ledger);
  // The next batch is read and encoded while the database stores this one.
  let next = batches.next();
  try {
    for (;;) {
      const batch = await next;
      if (batch.done === true) break;
      next = batches.next();
      // Its failure surfaces at the next await; until then it is not unhandled.
      next.catch(() => undefined);
      imported += await copyBatch(client, schema, copyFrom, batch.value);
    }
  } finally {
    // On a failure, the read in flight must neither go unhandled nor keep the source open.
    void next.then(() => batches.return(undefined)).catch(() => undefined);
  }
  await client.query('COMMIT');
  return {
    read: counts.read,
    imported,
    duplicates: counts.read - imported,
    badLines: counts.badLines,
    tornTail: counts.tornTail,
  };
};

/** {@link importRecords} once the checks passed, on a client of its own. */
const importWith = async (
  client: SqlPoolClient,
  schema: SchemaName,
  copyFrom: CopyFrom,
  records: AsyncIterable<readonly LogRecord[]>,
  options: ImportOptions,
): Promise<Result<ImportOutcome, PostgresError>> => {
  try {
    const outcome = await copyAll(client, schema, copyFrom, records, options);
    // Fresh statistics: with those of the table before a bulk load, the planner
    // reads a whole partition's range for each batch of the workers.
    await client.query(`ANALYZE ${schema}.events`).catch(() => undefined);
    client.release();
    return ok(outcome);
  } catch (cause) {
    client.release(await rollBack(client, cause));
    if (cause instanceof EventLogReadError) {
      return err({
        kind: 'source',
        message: `reading the records to import failed: ${cause.message}`,
      });
    }
    return err(databaseError(cause, `importing into ${schema}.events`));
  }
};

/**
 * Imports records, in order, after whatever the store holds. An error (the
 * database, or reading `records`) rolls the whole import back.
 */
export const importRecords = async (
  pool: SqlPool,
  records: AsyncIterable<readonly LogRecord[]>,
  options: ImportOptions = {},
): Promise<Result<ImportOutcome, PostgresError>> =>
  safeTry(async function* () {
    const schema = yield* schemaName(options.schema);
    const copyFrom = yield* await loadCopyFrom();
    yield* await checkSchema(pool, schema);
    const client = yield* await connect(pool);
    return await importWith(client, schema, copyFrom, records, options);
  });
