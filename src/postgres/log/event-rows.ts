/**
 * Rows of the events table as log records, and appended items as the
 * arrays one `INSERT … SELECT FROM unnest(…)` stores.
 */
import type { EncodedRecord } from '../../engine/append-encoding.js';
import type { LogRecord } from '../../engine/event-log.js';
import { routingOf } from '../event-routing.js';
import { EVERY_PARTITION } from '../schema/migration-partitions.js';
import type { SchemaName } from '../schema-name.js';
import { type Sql, sql } from '../sql/sql.js';

/** One row as {@link selectEventsSql} returns it. */
export interface EventRow {
  readonly position: string;
  readonly delivery_id: string | null;
  /** Milliseconds since the epoch, as text (`bigint`). */
  readonly received_ms: string | null;
  readonly body: string;
  readonly bad_line: string | null;
  /** Why an operator skipped it (`skipPosition`); NULL for an event that is not skipped. */
  readonly skipped: string | null;
}

/** The quarantine message of a skipped event: a bad line, so it is visible and counted once. */
export const skippedReason = (reason: string): string => `skipped with signfold pg skip: ${reason}`;

/** The columns of an {@link EventRow} read from the events table as `e`. */
const EVENT_COLUMNS = (schema: SchemaName): Sql =>
  sql`position, delivery_id, body, bad_line,
      (SELECT s.reason FROM ${sql.id(schema, 'skipped')} AS s WHERE s.position = e.position) AS skipped,
      (extract(epoch FROM received_at) * 1000)::bigint AS received_ms`;

/** Reads `limit` events from position `from` on, in position order. */
export const selectEventsSql = (schema: SchemaName, from: number, limit: number): Sql =>
  sql`SELECT ${EVENT_COLUMNS(schema)}
        FROM ${sql.id(schema, 'events')} AS e WHERE position >= ${from} ORDER BY position LIMIT ${limit}`;

/** Reads the events at `positions`, in position order. */
export const selectEventsAtSql = (schema: SchemaName, positions: readonly number[]): Sql =>
  sql`SELECT ${EVENT_COLUMNS(schema)}
        FROM ${sql.id(schema, 'events')} AS e WHERE position = ANY(${positions}::bigint[]) ORDER BY position`;

/**
 * The log record of a row; an imported bad line, a body that is not JSON and
 * a skipped event are `bad-line` records.
 */
export const recordOfRow = (row: EventRow): LogRecord => {
  const position = Number(row.position);
  if (row.skipped !== null) {
    return {
      kind: 'bad-line',
      position,
      line: position,
      raw: row.body,
      reason: skippedReason(row.skipped),
    };
  }
  if (row.bad_line === null) {
    try {
      return {
        kind: 'entry',
        position,
        line: position,
        // Formatted as the file log formats it (Date#toISOString).
        receivedAt:
          row.received_ms === null ? undefined : new Date(Number(row.received_ms)).toISOString(),
        deliveryId: row.delivery_id ?? undefined,
        event: JSON.parse(row.body) as unknown,
        raw: row.body,
      };
    } catch (cause) {
      // Only a row written around signfold can get here: report it, never throw.
      const reason = `invalid JSON: ${cause instanceof Error ? cause.message : String(cause)}`;
      return { kind: 'bad-line', position, line: position, raw: row.body, reason };
    }
  }
  return { kind: 'bad-line', position, line: position, raw: row.body, reason: row.bad_line };
};

/**
 * Inserts the unnest()ed arrays in array order, skipping delivery ids
 * already stored. `ledgerVersion` is the version of the erasure ledger the
 * bodies were erased with: the statement fails with `LEDGER_CHANGED` when a
 * forget committed since (see erased-appends.ts). The check is an InitPlan,
 * run once, after the insert trigger took the append lock.
 */
export const insertEventsSql = (
  schema: SchemaName,
  [deliveryIds, receivedAts, bodies, badLines, types, companies, templates, requests]: EventColumns,
  ledgerVersion: number,
): Sql =>
  sql`INSERT INTO ${sql.id(schema, 'events')}
     (delivery_id, received_at, body, bad_line, event_type, company_id, template_id, sign_request_id)
   SELECT delivery_id, received_at, body, bad_line, event_type, company_id, template_id, sign_request_id
     FROM unnest(${deliveryIds}::text[], ${receivedAts}::timestamptz[], ${bodies}::text[],
                 ${badLines}::text[], ${types}::text[], ${companies}::bigint[],
                 ${templates}::bigint[], ${requests}::bigint[])
          WITH ORDINALITY AS item(delivery_id, received_at, body, bad_line, event_type,
                                  company_id, template_id, sign_request_id, n)
    WHERE (SELECT ${sql.id(schema, 'ledger_unchanged')}(${ledgerVersion}::bigint))
    ORDER BY n
   ON CONFLICT (delivery_id) DO NOTHING
   RETURNING position, delivery_id`;

/** Column arrays for {@link insertEventsSql}. */
export type EventColumns = [
  (string | null)[],
  (string | null)[],
  string[],
  (string | null)[],
  (string | null)[],
  (number | null)[],
  (number | null)[],
  (number | null)[],
];

/** An item to store: an appended event, or (when importing a file log) a line that is not one. */
export interface StoredItem {
  readonly deliveryId: string | undefined;
  readonly receivedAt: string | undefined;
  readonly body: string;
  /** Why the line is not an event; `undefined` for events. */
  readonly badLine: string | undefined;
  /** The parsed event, for the routing columns. */
  readonly event: unknown;
}

/** The stored form of an encoded (validated) append. */
export const storedItemOf = (item: EncodedRecord, event: unknown): StoredItem => ({
  deliveryId: item.deliveryId,
  receivedAt: item.receivedAt,
  body: item.eventJson,
  badLine: undefined,
  event,
});

/** The column arrays of items, in item order. */
export const eventColumns = (items: readonly StoredItem[]): EventColumns => {
  const columns: EventColumns = [[], [], [], [], [], [], [], []];
  for (const item of items) {
    const routing = routingOf(item.event);
    columns[0].push(item.deliveryId ?? null);
    columns[1].push(item.receivedAt ?? null);
    columns[2].push(item.body);
    columns[3].push(item.badLine ?? null);
    columns[4].push(routing.eventType);
    columns[5].push(routing.companyId);
    columns[6].push(routing.templateId);
    columns[7].push(routing.signRequestId);
  }
  return columns;
};

/**
 * What {@link partitionEventsSql} reads between: values, or expressions of
 * an enclosing query (`sql\`p.position\``).
 */
export interface PartitionEventsBounds {
  readonly partition: Sql | number;
  readonly after: Sql | number;
  readonly upTo: Sql | number;
  readonly limit: Sql | number;
}

/**
 * A query of a partition's events and the template events every partition
 * reads, in position order, after `after` up to `upTo`, at most `limit`:
 * two index range scans merged, never a scan of the other partitions' events.
 */
export const partitionEventsSql = (
  schema: SchemaName,
  { partition, after, upTo, limit }: PartitionEventsBounds,
): Sql => {
  const part = (of: Sql | number): Sql =>
    sql`(SELECT partition, ${EVENT_COLUMNS(schema)}
        FROM ${sql.id(schema, 'events')} AS e
       WHERE partition = ${of} AND position > ${after} AND position <= ${upTo}
       ORDER BY position LIMIT ${limit})`;
  return sql`SELECT * FROM (${part(partition)} UNION ALL ${part(EVERY_PARTITION)}) AS e ORDER BY position LIMIT ${limit}`;
};
