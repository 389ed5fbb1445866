/**
 * The read model of a PostgreSQL log (`serve --database URL`, the read
 * handler's `database`): the projection tables the workers (`signfold pg
 * work`) keep, read on each request through a pool of its own, so a slow
 * read never holds a connection a delivery is waiting for, with every
 * statement bounded by {@link READ_QUERY_TIMEOUT_MS} when the pool is ours. The
 * state is what the workers have projected; a request's audit trail is its
 * stored events up to its partition's checkpoint, folded again to say what
 * each did (the tables keep the result, not the outcome of every event).
 */
import type { SignRequestId } from '../../core/ids.js';
import { createProjector } from '../../engine/projector.js';
import type { ReadableLog } from '../../engine/projector-types.js';
import {
  type ListPage,
  type ListQuery,
  MAX_AUDIT_ENTRIES,
  type ReadModel,
  type SignRequestDocument,
} from '../../engine/read-model.js';
import { type EventRow, recordOfRow } from '../log/event-rows.js';
import type { SchemaName } from '../schema-name.js';
import { checkOut, rollBack, type SqlPool, type SqlQueryable } from '../sql-client.js';
import {
  PARTICIPANTS,
  SIGN_REQUESTS,
  selectColumnsSql,
  viewOfRow,
} from '../tables/projection-columns.js';

/**
 * The deadline of one read statement, in ms: an indexed lookup takes a
 * millisecond, and a page of a report's events well under this; a read
 * stuck behind a lock or a slow disk is answered 503 rather than waited on.
 */
export const READ_QUERY_TIMEOUT_MS = 5000;

/** Events per query when a report reads the log. */
const REPORT_PAGE = 5000;

/** The columns `recordOfRow` reads, of the events aliased `e`. */
const eventColumns = (s: SchemaName): string =>
  `e.position, e.delivery_id, e.body, e.bad_line,
   (SELECT k.reason FROM ${s}.skipped AS k WHERE k.position = e.position) AS skipped,
   (extract(epoch FROM e.received_at) * 1000)::bigint AS received_ms`;

/** Runs `read` in one read-only snapshot, so a worker's commit is seen whole or not at all. */
const inSnapshot = async <T>(pool: SqlPool, read: (db: SqlQueryable) => Promise<T>): Promise<T> => {
  const db = await checkOut(pool);
  let broken: Error | true | undefined;
  try {
    await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const value = await read(db);
    await db.query('COMMIT');
    return value;
  } catch (cause) {
    broken = await rollBack(db, cause);
    throw cause;
  } finally {
    db.release(broken);
  }
};

/** The events of `companies`, read page by page in position order (a log for the report's fold). */
const companyEvents = (
  pool: SqlPool,
  s: SchemaName,
  companies: readonly number[],
): ReadableLog => ({
  read: async function* () {
    let after = 0;
    for (;;) {
      const { rows } = await pool.query<EventRow>(
        `SELECT ${eventColumns(s)} FROM ${s}.events AS e
          WHERE e.company_id = ANY($1::bigint[]) AND e.position > $2
          ORDER BY e.position LIMIT $3`,
        [companies, after, REPORT_PAGE],
      );
      if (rows.length === 0) return;
      const records = rows.map(recordOfRow);
      after = records.at(-1)?.position ?? after;
      yield records;
      if (rows.length < REPORT_PAGE) return;
    }
  },
});

/** The request `id` of `companies`, with its participants and audit trail, read in one snapshot. */
const documentOf = (
  pool: SqlPool,
  s: SchemaName,
  id: number,
  companies: ReadonlySet<number>,
): Promise<SignRequestDocument | undefined> =>
  inSnapshot(pool, async (db) => {
    const found = await db.query<Record<string, unknown>>(
      `${selectColumnsSql(SIGN_REQUESTS, s)} WHERE id = $1 AND company_id = ANY($2::bigint[])`,
      [id, [...companies]],
    );
    const row = found.rows[0];
    if (row === undefined) return undefined;
    const participants = await db.query<Record<string, unknown>>(
      `${selectColumnsSql(PARTICIPANTS, s)} WHERE sign_request_id = $1 ORDER BY id`,
      [id],
    );
    // The request's events and those of the templates it names (a request sent from a
    // deleted template is a conflict), up to what its partition has projected.
    const events = await db.query<EventRow>(
      `SELECT ${eventColumns(s)} FROM ${s}.events AS e
        WHERE e.position <= (SELECT p.position FROM ${s}.partitions AS p
                              WHERE p.partition = ${s}.partition_of_request($1))
          AND (e.sign_request_id = $1
               OR (e.event_type LIKE 'template-%' AND e.template_id IN
                     (SELECT r.template_id FROM ${s}.events AS r
                       WHERE r.sign_request_id = $1 AND r.template_id IS NOT NULL)))
        ORDER BY e.position LIMIT $2`,
      [id, MAX_AUDIT_ENTRIES * 2],
    );
    const projector = createProjector({ audit: true, policy: 'skip' });
    for (const event of events.rows) projector.applyRecord(recordOfRow(event));
    const history = projector.signRequestHistory(id as SignRequestId);
    return {
      signRequest: viewOfRow(SIGN_REQUESTS, row),
      participants: participants.rows.map((p) => viewOfRow(PARTICIPANTS, p)),
      auditTrail: history.slice(0, MAX_AUDIT_ENTRIES),
      ...(history.length > MAX_AUDIT_ENTRIES || events.rows.length === MAX_AUDIT_ENTRIES * 2
        ? { auditTrailTruncated: true as const }
        : {}),
    };
  });

/** One page of `companies`' requests that match `query`. */
const pageOf = async (
  pool: SqlPool,
  s: SchemaName,
  query: ListQuery,
  companies: ReadonlySet<number>,
  now: Date,
): Promise<ListPage> => {
  const values: unknown[] = [
    [...companies],
    query.company ?? null,
    query.after ?? null,
    query.limit + 1,
  ];
  let which = 'NOT deleted';
  if (query.status === 'deleted') which = 'deleted';
  else if (query.stuckAfterMs !== undefined) {
    values.push(new Date(now.getTime() - query.stuckAfterMs));
    which = `NOT deleted AND status = 'sent' AND sent_at <= $${values.length}`;
  } else if (query.status !== undefined) {
    values.push(query.status);
    which = `NOT deleted AND status = $${values.length}`;
  }
  const { rows } = await pool.query<Record<string, unknown>>(
    `${selectColumnsSql(SIGN_REQUESTS, s)}
      WHERE company_id = ANY($1::bigint[]) AND ($2::bigint IS NULL OR company_id = $2)
        AND ($3::bigint IS NULL OR id > $3) AND ${which}
      ORDER BY id LIMIT $4`,
    values,
  );
  const views = rows.slice(0, query.limit).map((row) => viewOfRow(SIGN_REQUESTS, row));
  const last = views.at(-1);
  return {
    signRequests: views,
    next: rows.length > query.limit && last !== undefined ? String(last.id) : null,
  };
};

/**
 * The read model on `pool` (the caller's, which it keeps: `close` leaves
 * it open) for the tables of `schema`. Give it a pool of its own, whose
 * statements are bounded (see `openReadPool`).
 */
export const postgresReadModel = (pool: SqlPool, schema: SchemaName): ReadModel => ({
  signRequest: (id, companies) => documentOf(pool, schema, id, companies),
  list: (query, companies, now) => pageOf(pool, schema, query, companies, now),
  events: (companies) =>
    companyEvents(
      pool,
      schema,
      [...companies].sort((a, b) => a - b),
    ),
  source: { inspectSource: ['--database', 'URL'], upcasters: [] },
  close: async () => undefined,
});
