/**
 * The bounds of every wait of a `pg` connection, shared by the pools the CLI
 * opens and the read handler's: one rule for how long a statement, a lock
 * and a silent peer may hold a caller up.
 */

/**
 * How much longer than the server's `statement_timeout` the client waits for
 * an answer, in ms: the server cancels a slow statement first (SQLSTATE
 * 57014, and the connection stays usable); the client's own timer fires only
 * when the server cannot answer at all (a dead or silent connection).
 */
export const CLIENT_DEADLINE_SLACK_MS = 2000;

/**
 * The session settings and client timers that bound every wait of a
 * connection whose statements may take `queryTimeoutMs`: the statement
 * (server and client side), a lock wait (half of it, so that a lock held by
 * someone else fails as 55P03 well before the statement's deadline), a
 * session idling in a transaction (a process stopped mid-transaction must
 * not hold its locks), and TCP keepalive for a peer that vanished.
 */
export const sessionBounds = (queryTimeoutMs: number) =>
  ({
    statement_timeout: queryTimeoutMs,
    lock_timeout: Math.max(100, Math.floor(queryTimeoutMs / 2)),
    idle_in_transaction_session_timeout: queryTimeoutMs,
    query_timeout: queryTimeoutMs + CLIENT_DEADLINE_SLACK_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  }) as const;
