/**
 * Bulk import of log records (e.g. a file log read with `readFileEventLog`)
 * through `COPY`, in one transaction: all of it is stored or none. Lines
 * with a delivery id already stored are skipped, so importing the same log
 * twice stores those once; lines without one have no identity and are
 * stored again (see docs/postgres.md).
 */
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { err, ok, type Result } from 'neverthrow';
import type { LogRecord } from '../engine/event-log.js';
import { EventLogReadError } from '../engine/log-errors.js';
import { routingOf, sqlText } from './event-routing.js';
import { checkSchema, type SchemaOptions } from './migrate.js';
import { databaseError, type PostgresError } from './postgres-error.js';
import { type SchemaName, schemaName } from './schema-name.js';
import type { SqlPool, SqlPoolClient } from './sql-client.js';

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

const csvText = (value: string): string => `"${sqlText(value).replaceAll('"', '""')}"`;
const csvOptional = (value: string | undefined): string =>
  value === undefined ? '' : csvText(value);
const csvNumber = (value: number | null): string => (value === null ? '' : String(value));

/** One CSV line of the staging table (an unquoted empty field is NULL). */
const csvLine = (n: number, record: LogRecord): string => {
  if (record.kind === 'bad-line') {
    return `${n},,,${csvText(record.raw)},${csvText(record.reason)},,,,\n`;
  }
  // A bare line is stored as written; an envelope's event is stored as JSON.stringify writes it.
  const body = record.receivedAt === undefined ? record.raw : JSON.stringify(record.event);
  const routing = routingOf(record.event);
  return [
    n,
    csvOptional(record.deliveryId),
    csvOptional(record.receivedAt),
    csvText(body),
    '',
    routing.eventType === null ? '' : csvText(routing.eventType),
    csvNumber(routing.companyId),
    csvNumber(routing.templateId),
    `${csvNumber(routing.signRequestId)}\n`,
  ].join(',');
};

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

async function* csvChunks(
  records: AsyncIterable<readonly LogRecord[]>,
  counts: { read: number; entries: number; badLines: number; tornTail: boolean },
  onProgress: ((records: number) => void) | undefined,
): AsyncGenerator<string> {
  for await (const batch of records) {
    let chunk = '';
    for (const record of batch) {
      if (record.kind === 'bad-line' && record.tornTail === true) {
        counts.tornTail = true;
        continue;
      }
      counts.read += 1;
      if (record.kind === 'bad-line') counts.badLines += 1;
      else counts.entries += 1;
      chunk += csvLine(counts.read, record);
    }
    if (chunk !== '') yield chunk;
    onProgress?.(counts.read);
  }
}

const copyAndInsert = async (
  client: SqlPoolClient,
  schema: SchemaName,
  copyFrom: CopyFrom,
  records: AsyncIterable<readonly LogRecord[]>,
  options: ImportOptions,
): Promise<ImportOutcome> => {
  const counts = { read: 0, entries: 0, badLines: 0, tornTail: false };
  await client.query('BEGIN');
  await client.query(
    `CREATE TEMPORARY TABLE signfold_import (
       n bigint, delivery_id text, received_at timestamptz, body text, bad_line text,
       event_type text, company_id bigint, template_id bigint, sign_request_id bigint
     ) ON COMMIT DROP`,
  );
  const copy = (client as unknown as { query(stream: Writable): Writable }).query(
    copyFrom('COPY signfold_import FROM STDIN (FORMAT csv)'),
  );
  await pipeline(csvChunks(records, counts, options.onProgress), copy);
  const inserted = await client.query(
    `INSERT INTO ${schema}.events
       (delivery_id, received_at, body, bad_line, event_type, company_id, template_id, sign_request_id)
     SELECT delivery_id, received_at, body, bad_line, event_type, company_id, template_id, sign_request_id
       FROM signfold_import ORDER BY n
     ON CONFLICT (delivery_id) DO NOTHING`,
  );
  await client.query('COMMIT');
  const imported = inserted.rowCount ?? 0;
  return {
    read: counts.read,
    imported,
    duplicates: counts.read - imported,
    badLines: counts.badLines,
    tornTail: counts.tornTail,
  };
};

/**
 * Imports records, in order, after whatever the store holds. An error (the
 * database, or reading `records`) rolls the whole import back.
 */
export const importRecords = async (
  pool: SqlPool,
  records: AsyncIterable<readonly LogRecord[]>,
  options: ImportOptions = {},
): Promise<Result<ImportOutcome, PostgresError>> => {
  const named = schemaName(options.schema);
  if (named.isErr()) return err(named.error);
  const schema = named.value;
  const copyFrom = await loadCopyFrom();
  if (copyFrom.isErr()) return err(copyFrom.error);
  const checked = await checkSchema(pool, schema);
  if (checked.isErr()) return err(checked.error);
  let client: SqlPoolClient;
  try {
    client = await pool.connect();
  } catch (cause) {
    return err(databaseError(cause, 'connecting to PostgreSQL'));
  }
  try {
    const outcome = await copyAndInsert(client, schema, copyFrom.value, records, options);
    client.release();
    return ok(outcome);
  } catch (cause) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(true);
    if (cause instanceof EventLogReadError) {
      return err({
        kind: 'source',
        message: `reading the records to import failed: ${cause.message}`,
      });
    }
    return err(databaseError(cause, `importing into ${schema}.events`));
  }
};
