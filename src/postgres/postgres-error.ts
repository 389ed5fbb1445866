/**
 * The errors of the PostgreSQL adapter. Expected failures (a server that is
 * down, a schema that is missing or newer than this code) are returned as
 * `Result` errors, never thrown.
 */

/** Why a PostgreSQL operation failed. */
export type PostgresError =
  /**
   * The server refused the statement or could not be reached; `code` is the
   * SQLSTATE, if any. `retryable` is `true` when the fault is the connection's
   * or the server's (classes 08, 40, 53, 55, 57, 58, state 25P03, socket
   * errors and timeouts): the same work may succeed once the server is
   * reachable again.
   */
  | {
      readonly kind: 'database';
      readonly code: string | undefined;
      readonly message: string;
      readonly retryable?: true;
    }
  /** No signfold schema under this name: run `migrate()` (or `signfold pg migrate`) first. */
  | { readonly kind: 'schema-missing'; readonly schema: string; readonly message: string }
  /** The schema was migrated by a newer signfold: this code refuses to touch it. */
  | {
      readonly kind: 'schema-too-new';
      readonly schema: string;
      readonly found: number;
      readonly supported: number;
      readonly message: string;
    }
  /** The schema is older than this code: run `migrate()` to upgrade it. */
  | {
      readonly kind: 'schema-too-old';
      readonly schema: string;
      readonly found: number;
      readonly supported: number;
      readonly message: string;
    }
  /** Reading the records to import failed (e.g. the log file vanished); nothing was imported. */
  | { readonly kind: 'source'; readonly message: string }
  /** An option is invalid (e.g. a schema name that is not a plain identifier). */
  | { readonly kind: 'invalid-option'; readonly message: string }
  /**
   * The projection tables this worker started on were replaced (`signfold pg
   * rebuild --switch`): it stops, writing nothing more; restart it (with the
   * rules of the rebuild) to work on the new ones.
   */
  | { readonly kind: 'tables-replaced'; readonly schema: string; readonly message: string };

/** A SQLSTATE: five digits or upper-case letters. */
const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * The error underneath wrappers that keep what they wrap as the standard
 * `cause` (a `BatchWriteError` does): the SQLSTATE or socket code that the
 * decisions read is the one PostgreSQL or Node raised, whoever wrapped it.
 */
export const rootCause = (cause: unknown): unknown => causeChain(cause).at(-1);

/** `cause`, then what it wraps as its standard `cause`, and so on (at most 8: a cycle must not hang). */
const causeChain = (cause: unknown): unknown[] => {
  const chain = [cause];
  let current = cause;
  while (chain.length < 8) {
    if (typeof current !== 'object' || current === null || !('cause' in current)) break;
    const inner = (current as { readonly cause: unknown }).cause;
    if (inner === undefined || inner === null) break;
    chain.push(inner);
    current = inner;
  }
  return chain;
};

const codeOf = (cause: unknown): string | undefined => {
  if (typeof cause !== 'object' || cause === null || !('code' in cause)) return undefined;
  const { code } = cause as { readonly code: unknown };
  return typeof code === 'string' ? code : undefined;
};

/**
 * Whether `cause` is Node's error about a socket or a host (`ECONNREFUSED`,
 * `ENOTFOUND`…): it has a `syscall`, which the server's errors never have.
 */
const isSystemError = (cause: unknown): boolean =>
  typeof cause === 'object' && cause !== null && 'syscall' in cause;

/**
 * The SQLSTATE of a `pg` error, when the server sent one; `undefined` for
 * Node's socket errors, whose `code` (`ECONNREFUSED`, `EPIPE`) is no SQLSTATE.
 */
export const sqlState = (cause: unknown): string | undefined => {
  const root = rootCause(cause);
  const code = codeOf(root);
  return code !== undefined && SQLSTATE.test(code) && !isSystemError(root) ? code : undefined;
};

/**
 * The code of the error as it was raised, through every wrapper: the
 * SQLSTATE PostgreSQL sent, or Node's socket code (`ECONNRESET`).
 */
export const errorCode = (cause: unknown): string | undefined => codeOf(rootCause(cause));

/**
 * SQLSTATE classes that say nothing about the data a statement carried: the
 * connection (08), the transaction's state (25, e.g. a session killed for
 * idling in a transaction), a rollback to retry (40), resources (53), the
 * state of an object such as a lock not granted in time (55), an operator or a
 * shutdown (57), the system (58).
 */
const NOT_ABOUT_THE_DATA = new Set(['08', '25', '40', '53', '55', '57', '58']);

/**
 * SQLSTATE classes (and single states) of faults that pass: the same
 * statement may succeed later, on a new connection. Authentication (28), a
 * missing schema (42P01, 3F000) and the like are not: retrying cannot fix them.
 */
const RETRYABLE_CLASSES = new Set(['08', '40', '53', '55', '57', '58']);
const RETRYABLE_STATES = new Set(['25P03']);

/**
 * What node-postgres throws, without a code, when a connection dies or a
 * deadline passes: a closed or broken connection, a connection attempt or a
 * query that got no answer in time.
 */
const CLIENT_CONNECTION_FAULT =
  /connection terminated|connection timeout|timeout exceeded when trying to connect|query read timeout|not queryable|client was closed|connection ended|connection closed/i;

/** Node's socket codes of a network or a server that may come back. */
const SOCKET_FAULTS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * Whether the failure may be about the data a statement carried (e.g. one
 * event's values): only when PostgreSQL itself said so, with a SQLSTATE
 * outside the classes of the connection, the transaction, locks, resources,
 * operators and the system. A socket error, a timeout or an error without a
 * SQLSTATE is never the data's fault.
 */
export const mayBeAboutTheData = (cause: unknown): boolean => {
  const state = sqlState(cause);
  return state !== undefined && !NOT_ABOUT_THE_DATA.has(state.slice(0, 2));
};

/**
 * Whether retrying later, on a new connection, may succeed: a fault of the
 * network, of a deadline, or of the server's state (see
 * {@link RETRYABLE_CLASSES}), as opposed to one that retrying cannot fix
 * (authentication, a missing schema, a refused statement).
 */
export const isRetryableCause = (cause: unknown): boolean => {
  const state = sqlState(cause);
  if (state !== undefined) {
    return RETRYABLE_CLASSES.has(state.slice(0, 2)) || RETRYABLE_STATES.has(state);
  }
  const chain = causeChain(cause);
  const code = codeOf(chain.at(-1));
  if (code !== undefined && SOCKET_FAULTS.has(code)) return true;
  // `pg` wraps some of its own (a connection timeout wraps the socket's end): any link may say it.
  return chain.some(
    (link) => link instanceof Error && CLIENT_CONNECTION_FAULT.test(detailOf(link)),
  );
};

/** Whether `error` is a fault that retrying later may get past (see {@link isRetryableCause}). */
export const isRetryable = (error: PostgresError): boolean =>
  error.kind === 'database' && error.retryable === true;

/** Node's socket and host errors that the server's address or state explains, in plain words. */
const SYSTEM_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'timed out',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed',
};

/** What `cause` says: its message, or (Node's connection attempts to several addresses) the first non-empty one of its errors. */
const detailOf = (cause: unknown): string => {
  if (!(cause instanceof Error)) return String(cause);
  if (cause.message !== '') return cause.message;
  const errors = (cause as Error & { readonly errors?: unknown }).errors;
  const first = Array.isArray(errors)
    ? errors.find((e): e is Error => e instanceof Error && e.message !== '')
    : undefined;
  return first?.message ?? codeOf(cause) ?? cause.name;
};

/** How the message labels the code of `cause`: `(SQLSTATE 42P01)` for the server's, `(connection refused)` for Node's. */
const codeLabel = (cause: unknown, detail: string): string => {
  const state = sqlState(cause);
  if (state !== undefined) return ` (SQLSTATE ${state})`;
  const code = codeOf(cause);
  if (code === undefined) return '';
  const words = Object.hasOwn(SYSTEM_ERRORS, code) ? SYSTEM_ERRORS[code] : undefined;
  if (words !== undefined) return ` (${words})`;
  return detail.includes(code) ? '' : ` (${code})`;
};

/** Wraps whatever a query threw, saying what was being done. */
export const databaseError = (cause: unknown, doing: string): PostgresError => {
  // The outer message says it best (`pg` wraps the socket's end in its own
  // words); the code is the root's, as PostgreSQL or Node raised it.
  const detail = detailOf(cause);
  return {
    kind: 'database',
    code: sqlState(cause),
    message: `${doing} failed: ${detail}${codeLabel(rootCause(cause), detail)}`,
    ...(isRetryableCause(cause) ? { retryable: true as const } : {}),
  };
};
