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

/** The SQLSTATE of a `pg` error, when the server sent one. */
export const sqlState = (cause: unknown): string | undefined => {
  if (typeof cause !== 'object' || cause === null || !('code' in cause)) return undefined;
  const { code } = cause as { readonly code: unknown };
  return typeof code === 'string' ? code : undefined;
};

/** Wraps whatever a query threw, saying what was being done. */
export const databaseError = (cause: unknown, doing: string): PostgresError => {
  const detail = cause instanceof Error ? cause.message : String(cause);
  const code = sqlState(cause);
  const state = code === undefined ? '' : ` (SQLSTATE ${code})`;
  return { kind: 'database', code, message: `${doing} failed: ${detail}${state}` };
};
