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
 * A statement to run as a named prepared statement (node-postgres's query
 * config): see {@link prepared}.
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

/**
 * `text` with its `values`, to be parsed and planned once per connection
 * instead of at every call: a named prepared statement, named after a digest
 * of its text (node-postgres refuses one name for two texts). For the
 * statements a worker or an appender runs over and over, where parsing and
 * planning were a third of an append's time in the database. A new object
 * each call: node-postgres writes the values into the object it is given.
 */
export const prepared = (text: string, values: unknown[]): PreparedQuery => {
  let name = names.get(text);
  if (name === undefined) {
    name = `signfold_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return { name, text, values };
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
