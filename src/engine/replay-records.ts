/**
 * The bulk path of a projector: streams a log from its checkpoint through the
 * same per-record step as live `applyRecord`, so both give identical results.
 */
import { err, ok, type Result } from 'neverthrow';
import type { LogRecord } from './event-log.js';
import type {
  ApplyResult,
  Halted,
  ProjectorStats,
  ReadableLog,
  ReplayError,
  ReplayOptions,
} from './projector-types.js';

/** What a replay drives: the projector's checkpoint, its per-record step and its counters. */
export interface RecordSink {
  readonly checkpoint: number;
  applyRecord(record: LogRecord): Result<ApplyResult, Halted>;
  stats(): ProjectorStats;
}

/**
 * Replays `log` into `sink` from the record after its checkpoint (up to
 * `until`). A checkpoint past the log's last position is refused
 * (`checkpoint-past-log`): every record would be skipped as already applied.
 */
export const replayRecords = async (
  sink: RecordSink,
  log: ReadableLog,
  options: ReplayOptions,
): Promise<Result<ProjectorStats, ReplayError>> => {
  const until = options.until ?? Number.POSITIVE_INFINITY;
  const resumedAt = sink.checkpoint;
  let processed = 0;
  // Read from the checkpoint itself, not after it: a record there (or later) proves the
  // log reaches it. Records at the checkpoint were processed already (a file's bad line may
  // share that position with its entry): they are passed over uncounted, as before.
  let reached = resumedAt === 0;
  const reading = { fromPosition: Math.max(resumedAt, 1), lazyRaw: true };
  for await (const batch of log.read(reading)) {
    for (const record of batch) {
      if (record.position >= resumedAt) reached = true;
      if (record.position === resumedAt) continue;
      if (record.position > until) {
        options.onProgress?.(sink.checkpoint, processed);
        return ok(sink.stats());
      }
      const result = sink.applyRecord(record);
      // Once per replayed record: a plain early return, no generator or closure (performance).
      if (result.isErr()) return err(result.error);
      processed += 1;
    }
    options.onProgress?.(sink.checkpoint, processed);
  }
  if (!reached) {
    return err({
      kind: 'checkpoint-past-log',
      checkpoint: resumedAt,
      message: `the checkpoint ${resumedAt} lies past the end of the log (it has no record at position ${resumedAt} or later): the snapshot was taken from another or a longer log; replay from the start`,
    });
  }
  return ok(sink.stats());
};
