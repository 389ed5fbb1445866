/**
 * The `pg` pool of the commands that use PostgreSQL (`pg …`, and `report` /
 * `inspect` with `--database`). Loads `pg` on use: it is an optional peer
 * dependency that the other commands never load.
 */
import type { SchemaOptions, SqlPool } from '../postgres/index.js';
import { isRetryableCause, sqlState } from '../postgres/postgres-error.js';
import { sessionBounds } from '../postgres/session-bounds.js';
import { CliError } from './cli-error.js';
import { checkDatabaseUrl, type UrlOrigin, withoutPassword } from './database-url.js';
import { importPg } from './import-pg.js';

/**
 * The deadline of one query, in ms, unless the command says otherwise:
 * longer than any query of `status`, `skip`, `serve` or a report takes, short
 * enough that a connection gone silent (a lost NAT entry, a stalled pooler)
 * is noticed instead of waited on for ever.
 */
export const DEFAULT_QUERY_TIMEOUT_MS = 30_000;

/**
 * The deadline of one query of the bulk commands (`pg import`, `pg export`,
 * `pg migrate`), in ms: their statements move whole tables.
 */
export const BULK_QUERY_TIMEOUT_MS = 300_000;

/** A pool the command ends when done. */
export type CliPool = SqlPool & { end(): Promise<void> };

/** How {@link openPool} opens a pool. */
export interface PoolOptions {
  /** How long opening one connection may take, in ms. */
  readonly connectTimeoutMs: number;
  /**
   * How long one statement may run, in ms (default
   * {@link DEFAULT_QUERY_TIMEOUT_MS}); see {@link sessionBounds} for the
   * waits derived from it.
   */
  readonly queryTimeoutMs?: number;
  /** Connections at most (default 4); `pg rebuild` holds one in its switch beside its workers'. */
  readonly max?: number;
  /** Names the command in the message shown when `pg` is not installed. */
  readonly who?: string;
  /** Where the URL came from, as a usage error names it. */
  readonly origin?: UrlOrigin;
  /**
   * The connections' `application_name` unless the URL or `PGAPPNAME` gives
   * one (sent as `pg`'s `fallback_application_name`): an operator, or a
   * benchmark, tells the command's server backends apart in `pg_stat_activity`.
   */
  readonly applicationName?: string;
}

/**
 * Opens a pool on `database` (a `postgres://` URL; usage error otherwise),
 * every wait of which is bounded: opening a connection (`connectTimeoutMs`),
 * each query and lock wait ({@link sessionBounds}). A client whose query
 * timed out is destroyed, never reused: `pg`'s pool does so for `pool.query`,
 * and the adapter releases a checked-out client with the error.
 */
export const openPool = async (database: string, options: PoolOptions): Promise<CliPool> => {
  let pg: typeof import('pg');
  try {
    pg = await importPg();
  } catch {
    throw new CliError(`${options.who ?? 'signfold pg'} needs the package 'pg': npm install pg`);
  }
  checkDatabaseUrl(database, options.origin);
  const pool = new pg.Pool({
    connectionString: database,
    max: options.max ?? 4,
    connectionTimeoutMillis: options.connectTimeoutMs,
    ...(options.applicationName === undefined
      ? {}
      : { fallback_application_name: options.applicationName }),
    ...sessionBounds(options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS),
  });
  // An idle client that loses its server must not crash the process: the next query reports it.
  pool.on('error', () => undefined);
  dropIdleAfterSilence(pool);
  return pool as unknown as CliPool;
};

/** The part of a `pg` client that {@link dropIdleAfterSilence} closes: its socket. */
type Closable = { readonly connection?: { readonly stream?: { destroy(): void } } };

/**
 * When a connection goes silent (a query got no answer in time, or its
 * socket failed), the idle connections opened before it most likely went
 * silent too (a lost NAT entry, a failover): each would cost the next
 * queries a whole deadline to find out. Their sockets are closed at once
 * instead, which takes them out of the pool (it drops a client whose
 * connection ends); new connections are opened as needed.
 */
const dropIdleAfterSilence = (pool: import('pg').Pool): void => {
  const idle = new Set<object>();
  pool.on('release', (error: Error | undefined, client: object) => {
    if (error === undefined) {
      idle.add(client);
      return;
    }
    idle.delete(client);
    // A refusal the server sent says the connection works: nothing to drop.
    if (sqlState(error) !== undefined || !isRetryableCause(error)) return;
    for (const other of idle) (other as Closable).connection?.stream?.destroy();
    idle.clear();
  });
  pool.on('acquire', (client: object) => idle.delete(client));
  pool.on('remove', (client: object) => idle.delete(client));
};

/** What `pg` says when a connection was not open in time (its pool, its client). */
const CONNECT_TIMEOUT =
  /connection timeout|timeout exceeded when trying to connect|timeout expired/i;

/**
 * `cause` as it may be shown: the password left out of its message, and a
 * connection that was not open in time said in plain words.
 */
const shownFailure = (cause: unknown, database: string, connectTimeoutMs: number): unknown => {
  if (!(cause instanceof Error)) return cause;
  let message = withoutPassword(cause.message, database);
  if (CONNECT_TIMEOUT.test(message)) {
    message += ` (no answer within ${connectTimeoutMs / 1000} s: see --connect-timeout)`;
  }
  if (cause instanceof CliError) {
    return new CliError(message, { exitCode: cause.exitCode, usage: cause.usage });
  }
  cause.message = message;
  // SIGNFOLD_DEBUG=1 prints the stack, which starts with the message as it was.
  if (cause.stack !== undefined) cause.stack = withoutPassword(cause.stack, database);
  return cause;
};

/**
 * Runs `use` on a pool opened on `database` and ends the pool. Whatever it
 * throws leaves without the URL's password (`pg` and the server may quote a
 * part of the URL in their messages).
 */
export const withPool = async <T>(
  database: string,
  options: PoolOptions,
  use: (pool: CliPool) => Promise<T>,
): Promise<T> => {
  try {
    const pool = await openPool(database, options);
    try {
      return await use(pool);
    } finally {
      await pool.end().catch(() => undefined);
    }
  } catch (cause) {
    throw shownFailure(cause, database, options.connectTimeoutMs);
  }
};

/** What every `pg` subcommand acts on, as `pg-command.ts` parses it once. */
export interface PgTarget {
  readonly database: string;
  /** `--schema`, as the adapter's functions take it (empty: the default schema). */
  readonly schemaOptions: SchemaOptions;
}
