/**
 * The PostgreSQL side of `signfold reconcile --database URL`: its event log
 * on a bounded pool, loaded only when the database is named so that a file
 * log never needs `pg`.
 */
import type { EventLog, LogFailure } from '../../engine/event-log.js';
import { openPostgresEventLog } from '../../postgres/log/postgres-event-log.js';
import { CliError } from '../cli-error.js';
import { shownUrl } from '../database-url.js';
import { openPool } from '../postgres-pool.js';
import type { EventSource } from '../sources/event-source.js';

/** The event log of the source's schema, and how to close it and its pool. */
export const openDatabaseLog = async (
  source: Extract<EventSource, { kind: 'database' }>,
): Promise<{ readonly log: EventLog<LogFailure>; readonly close: () => Promise<void> }> => {
  const pool = await openPool(source.url, {
    connectTimeoutMs: source.connectTimeoutMs,
    who: 'signfold reconcile',
  });
  const opened = await openPostgresEventLog(pool, {
    ...(source.schema === undefined ? {} : { schema: source.schema }),
  });
  if (opened.isErr()) {
    await pool.end().catch(() => undefined);
    const hint = opened.error.kind === 'schema-missing' ? ' (run signfold pg migrate first)' : '';
    throw new CliError(
      `reconcile: cannot open ${shownUrl(source.url)}: ${opened.error.message}${hint}`,
    );
  }
  const log = opened.value;
  return {
    log,
    close: async () => {
      await log.close().catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  };
};
