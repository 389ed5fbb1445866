/**
 * Replays an {@link EventSource} into a projector. The database path is
 * loaded on use, so reading a file never loads `pg`.
 */
import type { Projector } from '../engine/projector.js';
import type { CliIO } from './cli-io.js';
import type { EventSource } from './event-source.js';
import { type ReplayRun, replayLogFile } from './replay-log.js';

/**
 * Replays `source` into `projector` (up to `until` if given), with progress
 * on a terminal. `command` names the command in the message shown when the
 * database path needs `pg` and it is not installed.
 */
export const replaySource = async (
  projector: Projector,
  source: EventSource,
  io: CliIO,
  command: string,
  until?: number,
): Promise<ReplayRun> => {
  if (source.kind === 'file') return replayLogFile(projector, source.path, io, until);
  const { replayDatabase } = await import('./replay-database.js');
  return replayDatabase(projector, source, io, command, until);
};
