/**
 * The errors of the PostgreSQL adapter. Expected failures (a server that is
 * down, a schema that is missing or newer than this code) are returned as
 * `Result` errors, never thrown.
 */

/** Why a PostgreSQL operation failed. */
export type PostgresError =
  /** The server refused the statement or could not be reached; `code` is the SQLSTATE, if any. */
  | { readonly kind: 'database'; readonly code: string | undefined; readonly message: string }
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
  | { readonly kind: 'invalid-option'; readonly message: string };

/** A SQLSTATE: five digits or upper-case letters. */
const SQLSTATE = /^[0-9A-Z]{5}$/;

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
  const code = codeOf(cause);
  return code !== undefined && SQLSTATE.test(code) && !isSystemError(cause) ? code : undefined;
};

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
  const detail = detailOf(cause);
  return {
    kind: 'database',
    code: sqlState(cause),
    message: `${doing} failed: ${detail}${codeLabel(cause, detail)}`,
  };
};
