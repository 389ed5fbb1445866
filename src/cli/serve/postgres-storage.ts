/**
 * `signfold serve --database URL`: the PostgreSQL event store. Any number of
 * serves may share one database; delivery ids stay unique across them. A
 * server that goes away is not fatal: appends answer 503 until it is back
 * (the pool reconnects), and `/readyz` says so meanwhile.
 */
import { openPostgresEventLog, type SqlPool } from '../../postgres/index.js';
import { CliError } from '../cli-error.js';
import type { ServeStorage } from './storage.js';

/** How long `/readyz` waits for the database before calling it unreachable. */
export const PROBE_TIMEOUT_MS = 2000;

/** `promise`, or `late` once `ms` passed (the promise itself is left to settle). */
const within = <T>(promise: Promise<T>, ms: number, late: T): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const tooLate = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
  });
  return Promise.race([promise, tooLate]).finally(() => clearTimeout(timer));
};

/**
 * Opens the event log of `schema` (default `signfold`) on `pool`, which
 * stays the caller's to end. Throws a {@link CliError} (exit 2) when the
 * database cannot be reached or the schema is missing or of another version.
 * `hide` takes the URL's password out of the driver's messages that /readyz
 * shows (they may quote a part of the URL).
 */
export const openPostgresStorage = async (
  pool: SqlPool,
  schema: string | undefined,
  hide: (text: string) => string,
): Promise<ServeStorage> => {
  const opened = await openPostgresEventLog(pool, schema === undefined ? {} : { schema });
  if (opened.isErr()) {
    const hint = opened.error.kind === 'schema-missing' ? ' (run signfold pg migrate first)' : '';
    throw new CliError(`cannot serve: ${opened.error.message}${hint}`);
  }
  const log = opened.value;
  let closing: Promise<void> | undefined;
  const ping = async (): Promise<string | undefined> => {
    try {
      await pool.query('SELECT 1');
      return undefined;
    } catch (cause) {
      return hide(
        `database unreachable: ${cause instanceof Error ? cause.message : String(cause)}`,
      );
    }
  };
  return {
    log,
    description: `PostgreSQL schema ${log.schema}`,
    probe: async () => {
      if (closing !== undefined) return 'stopping';
      const late = `database unreachable: no answer within ${PROBE_TIMEOUT_MS} ms`;
      return within(ping(), PROBE_TIMEOUT_MS, late);
    },
    close: () => {
      closing ??= log.close().catch(() => undefined);
      return closing;
    },
  };
};
