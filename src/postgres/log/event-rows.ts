/**
 * Rows of the events table as log records, and appended items as the
 * arrays one `INSERT … SELECT FROM unnest(…)` stores.
 */
import type { EncodedRecord } from '../../engine/append-encoding.js';
import type { LogRecord } from '../../engine/event-log.js';
import { routingOf } from '../event-routing.js';
import { EVERY_PARTITION } from '../schema/migration-partitions.js';
import type { SchemaName } from '../schema-name.js';

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

/** The `skipped` column of the reads: the reason of a skip, joined by position. */
const SKIPPED = (schema: SchemaName, events: string): string =>
  `(SELECT s.reason FROM ${schema}.skipped AS s WHERE s.position = ${events}.position) AS skipped`;

/** Reads `limit` events from position `$1` on, in position order. */
export const selectEventsSql = (schema: SchemaName): string =>
  `SELECT position, delivery_id, body, bad_line, ${SKIPPED(schema, 'e')},
          (extract(epoch FROM received_at) * 1000)::bigint AS received_ms
     FROM ${schema}.events AS e WHERE position >= $1 ORDER BY position LIMIT $2`;

/** Reads the events at the positions in `$1` (a `bigint[]`), in position order. */
export const selectEventsAtSql = (schema: SchemaName): string =>
  `SELECT position, delivery_id, body, bad_line, ${SKIPPED(schema, 'e')},
          (extract(epoch FROM received_at) * 1000)::bigint AS received_ms
     FROM ${schema}.events AS e WHERE position = ANY($1::bigint[]) ORDER BY position`;

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
 * already stored. `$9` is the version of the erasure ledger the bodies were
 * erased with: the statement fails with `LEDGER_CHANGED` when a forget
 * committed since (see erased-appends.ts). The check is an InitPlan, run
 * once, after the insert trigger took the append lock.
 */
export const insertEventsSql = (schema: SchemaName): string =>
  `INSERT INTO ${schema}.events
     (delivery_id, received_at, body, bad_line, event_type, company_id, template_id, sign_request_id)
   SELECT delivery_id, received_at, body, bad_line, event_type, company_id, template_id, sign_request_id
     FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[],
                 $6::bigint[], $7::bigint[], $8::bigint[])
          WITH ORDINALITY AS item(delivery_id, received_at, body, bad_line, event_type,
                                  company_id, template_id, sign_request_id, n)
    WHERE (SELECT ${schema}.ledger_unchanged($9::bigint))
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

/** The SQL expressions {@link partitionEventsSql} reads between. */
export interface PartitionEventsBounds {
  readonly partition: string;
  readonly after: string;
  readonly upTo: string;
  readonly limit: string;
}

/**
 * A query of a partition's events and the template events every partition
 * reads, in position order, after `after` up to `upTo`, at most `limit`
 * (SQL expressions: parameters or columns of an enclosing query): two index
 * range scans merged, never a scan of the other partitions' events.
 */
export const partitionEventsSql = (
  schema: SchemaName,
  { partition, after, upTo, limit }: PartitionEventsBounds,
): string => {
  const part = (of: string): string =>
    `(SELECT position, delivery_id, body, bad_line, partition, ${SKIPPED(schema, 'e')},
             (extract(epoch FROM received_at) * 1000)::bigint AS received_ms
        FROM ${schema}.events AS e
       WHERE partition = ${of} AND position > ${after} AND position <= ${upTo}
       ORDER BY position LIMIT ${limit})`;
  return `SELECT * FROM (${part(partition)} UNION ALL ${part(String(EVERY_PARTITION))}) AS e ORDER BY position LIMIT ${limit}`;
};

/** {@link partitionEventsSql} of partition `$1`, after `$2` up to `$3`, at most `$4`. */
export const selectPartitionEventsSql = (schema: SchemaName): string =>
  partitionEventsSql(schema, { partition: '$1', after: '$2', upTo: '$3', limit: '$4' });
