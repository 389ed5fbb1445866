/**
 * Replays a log file into a projector for any command: read-only, with
 * progress on a terminal, timed, and with read failures turned into one-line
 * errors (exit 2) instead of exceptions.
 */
import type { Result } from 'neverthrow';
import type { EventLog } from '../../engine/event-log.js';
import { EventLogReadError } from '../../engine/log-errors.js';
import type { Projector } from '../../engine/projector.js';
import type { Halted, ProjectorStats, ReadableLog } from '../../engine/projector-types.js';
import { CliError } from '../cli-error.js';
import type { CliIO } from '../cli-io.js';
import { ReplayProgress } from '../progress.js';
import { openReadOnlyLog } from './read-only-log.js';

/** What one replay did. */
export interface ReplayRun {
  /** The projector's counters, or why it halted (policy `halt`). */
  readonly result: Result<ProjectorStats, Halted>;
  /** Records processed, a restored snapshot's included: a resumed replay reports the whole log. */
  readonly processed: number;
  readonly elapsedMs: number;
}

/** Records a projector has processed, whatever became of them. */
export const processedCount = (stats: ProjectorStats): number =>
  stats.applied + stats.noOps + stats.conflicts + stats.invalid + stats.alreadyApplied;

/** How a command reads a log: the log itself, or a view of it (the report's period). */
export type LogView = (log: ReadableLog) => ReadableLog;

/**
 * Replays `log` into `projector` from its checkpoint, up to `until`
 * (inclusive) if given, with progress named `label`, then closes `log`.
 * With `view`, the projector reads the log through it.
 * Throws a {@link CliError} if the log cannot be read, or if the projector's
 * checkpoint (a restored snapshot's) lies past the log's last position.
 */
export const replayOpenLog = async (
  projector: Projector,
  log: EventLog,
  label: string,
  io: CliIO,
  until?: number,
  view?: LogView,
): Promise<ReplayRun> => {
  const progress = new ReplayProgress(io.stderr, io.now, label);
  const started = io.now();
  try {
    const replayed = await projector.replay(view === undefined ? log : view(log), {
      ...(until === undefined ? {} : { until }),
      onProgress: (position, processed) => progress.tick(position, processed),
    });
    const result = replayed.mapErr((error) => {
      // Nothing was applied: resuming there would drop every record, so it is an input error.
      if (error.kind === 'checkpoint-past-log') throw new CliError(`${label}: ${error.message}`);
      return error;
    });
    return {
      result,
      processed: processedCount(projector.stats()),
      elapsedMs: io.now() - started,
    };
  } catch (cause) {
    // The file vanished, turned out to be unreadable mid-way, the disk or the database failed.
    if (cause instanceof EventLogReadError) throw new CliError(cause.message);
    throw cause;
  } finally {
    progress.finish();
    await log.close();
  }
};

/**
 * Replays `logPath` into `projector` from its checkpoint, up to `until`
 * (inclusive) if given. Throws a {@link CliError} if the file cannot be read.
 */
export const replayLogFile = async (
  projector: Projector,
  logPath: string,
  io: CliIO,
  until?: number,
  view?: LogView,
): Promise<ReplayRun> =>
  replayOpenLog(projector, await openReadOnlyLog(logPath), logPath, io, until, view);
