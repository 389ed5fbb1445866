/**
 * The slice of node-postgres (`pg`) the adapter uses, as structural types:
 * a `pg.Pool` fits them, and the adapter's own type declarations need no
 * `@types/pg`. `pg` itself is an optional peer dependency of signfold.
 */
import { createHash } from 'node:crypto';
import { err, ok, type Result } from 'neverthrow';
import { databaseError, type PostgresError, sqlState } from './postgres-error.js';

/** What a query resolves to (a subset of `pg.QueryResult`). */
export interface SqlResult<Row> {
  readonly rows: Row[];
  readonly rowCount: number | null;
}

/**
 * A statement to run as a named prepared statement: node-postgres's query
 * config, which a `pg.Pool` and its clients take in place of the text. The
 * appender and the workers send it for the statements they repeat outside a
 * transaction (see docs/postgres.md); a wrapper around a pool must pass it on.
 */
export interface PreparedQuery {
  readonly name: string;
  readonly text: string;
  readonly values: unknown[];
}

/** Anything that runs a parameterized query: a pool or one of its clients. */
export interface SqlQueryable {
  /**
   * Runs `text` with `$1`… bound to `values` (or a {@link PreparedQuery});
   * rejects on any database error.
   */
  query<Row = Record<string, unknown>>(
    text: string | PreparedQuery,
    values?: unknown[],
  ): Promise<SqlResult<Row>>;
}

/** A client checked out of a pool, for a transaction. */
export interface SqlPoolClient extends SqlQueryable {
  /** Returns the client to its pool; pass an error to destroy a broken connection instead. */
  release(destroy?: Error | boolean): void;
}

/** A `pg.Pool` (or anything with its `query` and `connect`). */
export interface SqlPool extends SqlQueryable {
  /** Checks out a client, for statements that must share a connection (a transaction). */
  connect(): Promise<SqlPoolClient>;
}

const names = new Map<string, string>();

/** `text` with its `values` as a named prepared statement, named after a digest of its text. */
const prepared = (text: string, values: unknown[]): PreparedQuery => {
  let name = names.get(text);
  if (name === undefined) {
    // node-postgres refuses one name for two texts on a connection.
    name = `signfold_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  // A new object each call: node-postgres writes into the object it is given.
  return { name, text, values };
};

/** Whether statements are still prepared in this process (see {@link queryPrepared}). */
let preparing = true;

/**
 * Runs `text` with `values` as a named prepared statement: parsed and
 * planned once per connection instead of at every call. For the statements
 * an appender or a worker runs over and over outside a transaction (an
 * append's insert spent a third of its time in the database being parsed
 * and planned). Behind a connection pooler that hands each statement to
 * another server connection (PgBouncer before 1.21 in transaction mode) a
 * prepared statement is missing where it is bound (26000) or already there
 * (42P05): the statement, which did not run, is run again unprepared, and
 * this process prepares none from then on. Never inside a transaction: the
 * failure would have aborted it.
 */
export const queryPrepared = async <Row = Record<string, unknown>>(
  db: SqlQueryable,
  text: string,
  values: unknown[],
): Promise<SqlResult<Row>> => {
  if (!preparing) return db.query<Row>(text, values);
  try {
    return await db.query<Row>(prepared(text, values));
  } catch (cause) {
    const state = sqlState(cause);
    if (state !== '26000' && state !== '42P05') throw cause;
    preparing = false;
    return db.query<Row>(text, values);
  }
};

/**
 * Runs `statements` as one text, one round trip, in the simple query
 * protocol: no parameters (values go in as literals, sql-literal.ts), and
 * each statement's result in order. A text of several statements runs as
 * one transaction unless it holds its own `BEGIN`; a failing statement
 * rejects the whole. The pool (or its wrapper) must answer such a text with
 * one result per statement, as `pg` does.
 */
export const querySeveral = async <Row = Record<string, unknown>>(
  db: SqlQueryable,
  statements: readonly string[],
): Promise<readonly SqlResult<Row>[]> => {
  const answer = (await db.query<Row>(statements.join(';\n'))) as
    | SqlResult<Row>
    | readonly SqlResult<Row>[];
  const results = Array.isArray(answer) ? answer : [answer];
  if (results.length !== statements.length) {
    throw new Error(
      `${statements.length} statements sent as one answered ${results.length} results: the pool must answer one per statement, as pg does`,
    );
  }
  return results;
};

type ErrorEvents = { on?(event: 'error', listener: (error: Error) => void): unknown };
const guarded = new WeakSet<object>();

/**
 * Checks out a client that cannot crash the process: `pg` emits a
 * connection lost between two queries as an `'error'` event, fatal without
 * a listener; with this one the next query reports it instead.
 */
export const checkOut = async (pool: SqlPool): Promise<SqlPoolClient> => {
  const client = await pool.connect();
  const events = client as SqlPoolClient & ErrorEvents;
  if (!guarded.has(client) && typeof events.on === 'function') {
    guarded.add(client);
    events.on('error', () => undefined);
  }
  return client;
};

/**
 * Rolls back the transaction of `client` that failed with `cause`, and says
 * how to release the client: destroyed (the error). The rollback is sent
 * only when the server answered (the failure has a SQLSTATE): a query that
 * got no answer in time may still be running on that connection, and a
 * ROLLBACK would only queue behind it for another deadline. A destroyed
 * connection ends its transaction on the server anyway.
 */
export const rollBack = async (client: SqlQueryable, cause: unknown): Promise<Error | true> => {
  if (sqlState(cause) !== undefined) await client.query('ROLLBACK').catch(() => undefined);
  return cause instanceof Error ? cause : true;
};

/** {@link checkOut}, with a refused or unreachable server as a `database` error. */
export const connect = async (pool: SqlPool): Promise<Result<SqlPoolClient, PostgresError>> => {
  try {
    return ok(await checkOut(pool));
  } catch (cause) {
    return err(databaseError(cause, 'connecting to PostgreSQL'));
  }
};
