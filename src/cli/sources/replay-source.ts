/**
 * Replays an {@link EventSource} into a projector. The database path is
 * loaded on use, so reading a file never loads `pg`.
 */
import type { Projector } from '../../engine/projector.js';
import type { CliIO } from '../cli-io.js';
import type { EventSource } from './event-source.js';
import { type LogView, type ReplayRun, replayLogFile } from './replay-log.js';

/**
 * Replays `source` into `projector` (up to `until` if given), with progress
 * on a terminal, through `view` if given. `command` names the command in the message shown when the
 * database path needs `pg` and it is not installed.
 */
export const replaySource = async (
  projector: Projector,
  source: EventSource,
  io: CliIO,
  command: string,
  until?: number,
  view?: LogView,
): Promise<ReplayRun> => {
  if (source.kind === 'file') return replayLogFile(projector, source.path, io, until, view);
  const { replayDatabase } = await import('./replay-database.js');
  return replayDatabase(projector, source, io, command, until, view);
};
