/**
 * `signfold serve --database URL`: the PostgreSQL event store. Any number of
 * serves may share one database; delivery ids stay unique across them. A
 * server that goes away is not fatal: appends answer 503 until it is back
 * (the pool reconnects), and `/readyz` says so meanwhile. A connection that
 * goes silent (no answer, never closed) is not fatal either: the log's
 * append deadline abandons the group commit waiting on it, destroys the
 * connection, and the next appends go on with a new one.
 */
import { openPostgresEventLog, type SqlPool } from '../../postgres/index.js';
import { CliError } from '../cli-error.js';
import type { ServeStorage } from './storage.js';

/**
 * How long `/readyz` waits for its check through the append queue before
 * calling the storage unavailable: short of the append deadline, so a probe
 * queued behind a stuck group commit answers 503 within it.
 */
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
 * shows (they may quote a part of the URL). An append that has not committed
 * within `appendTimeoutMs` fails with a `timeout` (see `appendTimeoutMs` of
 * `openPostgresEventLog`): the log owns serve's append deadline, and nothing
 * else in serve times an append.
 */
export const openPostgresStorage = async (
  pool: SqlPool,
  schema: string | undefined,
  hide: (text: string) => string,
  appendTimeoutMs: number,
): Promise<ServeStorage> => {
  const opened = await openPostgresEventLog(pool, {
    ...(schema === undefined ? {} : { schema }),
    appendTimeoutMs,
  });
  if (opened.isErr()) {
    const hint = opened.error.kind === 'schema-missing' ? ' (run signfold pg migrate first)' : '';
    throw new CliError(`cannot serve: ${opened.error.message}${hint}`);
  }
  const log = opened.value;
  let closing: Promise<void> | undefined;
  // Not a query of its own on any connection: through the appends' queue and connections, so
  // it fails while they are stuck (a fresh connection may well answer meanwhile).
  const ping = async (): Promise<string | undefined> => {
    const pinged = await log.ping();
    return pinged.isOk() ? undefined : hide(`database unavailable: ${pinged.error.message}`);
  };
  return {
    log,
    description: `PostgreSQL schema ${log.schema}`,
    probe: async () => {
      if (closing !== undefined) return 'stopping';
      const late = `database unavailable: the append queue did not answer within ${PROBE_TIMEOUT_MS / 1000} s`;
      return within(ping(), PROBE_TIMEOUT_MS, late);
    },
    close: () => {
      closing ??= log.close().catch(() => undefined);
      return closing;
    },
  };
};
