/**
 * The read model of `serve --database URL`: the projection tables the
 * workers (`signfold pg work`) keep, read on each request through a pool of
 * its own, so a slow read never holds a connection a delivery is waiting
 * for, with every statement bounded by {@link READ_QUERY_TIMEOUT_MS}. The
 * state is what the workers have projected; a request's audit trail is its
 * stored events up to its partition's checkpoint, folded again to say what
 * each did (the tables keep the result, not the outcome of every event).
 */
import type { SignRequestId } from '../../../core/ids.js';
import { createProjector } from '../../../engine/projector.js';
import type { ReadableLog } from '../../../engine/projector-types.js';
import { type EventRow, recordOfRow } from '../../../postgres/event-rows.js';
import type { SqlPool, SqlQueryable } from '../../../postgres/index.js';
import {
  PARTICIPANTS,
  SIGN_REQUESTS,
  selectColumnsSql,
  viewOfRow,
} from '../../../postgres/projection-columns.js';
import { type SchemaName, schemaName } from '../../../postgres/schema-name.js';
import { checkOut, rollBack } from '../../../postgres/sql-client.js';
import { CliError } from '../../cli-error.js';
import { type CliPool, openPool } from '../../pg/pool.js';
import { renderCompanyReport } from './company-report.js';
import { MAX_AUDIT_ENTRIES, type ReadModel, type SignRequestDocument } from './read-model.js';

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

/**
 * Opens the read pool on `url` (`connectTimeoutMs` to connect, as for the
 * appends; four connections, where reads queue, never in the appends' pool)
 * for `schema`.
 */
export const openPostgresReadModel = async (
  url: string,
  schema: string | undefined,
  connectTimeoutMs: number,
): Promise<ReadModel> => {
  const checked = schemaName(schema);
  if (checked.isErr()) throw new CliError(checked.error.message);
  const s = checked.value;
  const pool: CliPool = await openPool(url, {
    connectTimeoutMs,
    queryTimeoutMs: READ_QUERY_TIMEOUT_MS,
    who: 'signfold serve --read-token-env',
  });
  return {
    signRequest: (id, companies) =>
      inSnapshot(pool, async (db): Promise<SignRequestDocument | undefined> => {
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
      }),
    list: async (query, companies, now) => {
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
    },
    report: (companies) => {
      const sorted = [...companies].sort((a, b) => a - b);
      return renderCompanyReport(companyEvents(pool, s, sorted), companies, {
        label: `the live state of companies ${sorted.join(', ')}`,
        inspectSource: ['--database', 'URL'],
      });
    },
    close: () => pool.end().catch(() => undefined),
  };
};
