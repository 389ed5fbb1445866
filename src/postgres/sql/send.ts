/** Sending an `sql` statement: its text, numbered once, with its values as parameters. */
import { queryPrepared, type SqlQueryable, type SqlResult } from '../sql-client.js';
import type { Sql } from './sql.js';

/** Runs `query` on `db` (a pool or a client); rejects on any database error. */
export const send = <Row = Record<string, unknown>>(
  db: SqlQueryable,
  query: Sql,
): Promise<SqlResult<Row>> => db.query<Row>(query.text, query.values);

/** Runs `query` as a named prepared statement (see `queryPrepared`): for statements repeated outside a transaction. */
export const sendPrepared = <Row = Record<string, unknown>>(
  db: SqlQueryable,
  query: Sql,
): Promise<SqlResult<Row>> => queryPrepared<Row>(db, query.text, query.values);
