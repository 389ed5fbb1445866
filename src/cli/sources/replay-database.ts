/**
 * Replays the events of a PostgreSQL event store (`--database URL`) into a
 * projector, as `replay-log.ts` does for a file. Loaded only for that path.
 */
import type { Projector } from '../../engine/projector.js';
import { CliError } from '../cli-error.js';
import type { CliIO } from '../cli-io.js';
import { withPool } from '../postgres-pool.js';
import { type EventSource, sourceLabel } from './event-source.js';
import { type LogView, type ReplayRun, replayOpenLog } from './replay-log.js';

/**
 * Replays the event table of `source` (read-only: it appends nothing and
 * takes no lock) and ends its pool. Any database failure (unreachable,
 * schema missing, a query refused) is a {@link CliError} (exit 2).
 */
export const replayDatabase = async (
  projector: Projector,
  source: Extract<EventSource, { kind: 'database' }>,
  io: CliIO,
  command: string,
  until?: number,
  view?: LogView,
): Promise<ReplayRun> => {
  const options = {
    who: `signfold ${command} --database`,
    connectTimeoutMs: source.connectTimeoutMs,
  };
  return withPool(source.url, options, async (pool) => {
    // After opening the pool: when pg is missing, that is the one line the user sees.
    const { openPostgresEventLog } = await import('../../postgres/index.js');
    const opened = await openPostgresEventLog(
      pool,
      source.schema === undefined ? {} : { schema: source.schema },
    );
    if (opened.isErr()) throw new CliError(opened.error.message);
    return await replayOpenLog(projector, opened.value, sourceLabel(source), io, until, view);
  });
};
