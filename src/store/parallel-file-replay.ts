/**
 * Replays an NDJSON log file on several threads. Each worker streams the
 * whole file, which is cheap, but parses, decodes and folds only the lines of
 * its partition of sign requests; template events go to every worker (a request
 * may not be sent from a deleted template). The partitions are then merged into
 * one projector.
 *
 * The result is identical to {@link Projector.replay} on the same file: the
 * routing relies on hints read from raw text, every hint is verified after
 * parsing, and if any does not hold (unusual key order, positions out of
 * order, duplicate keys…) the file is replayed sequentially instead.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { err, ok, type Result } from 'neverthrow';
import { createProjector, type Projector } from '../engine/projector.js';
import type { Halted, ProjectorOptions, ProjectorStats } from '../engine/projector-types.js';
import { restoreProjector, type Snapshot } from '../engine/snapshot.js';
import { readFileEventLog } from './file-record-stream.js';
import { EventLogReadError, ioError } from './log-error.js';
import { DEFAULT_MAX_LINE_BYTES } from './log-limits.js';
import type { WorkerReport, WorkerSetup } from './parallel-replay-protocol.js';

/** Options of {@link replayFileParallel}. */
export interface ParallelReplayOptions extends ProjectorOptions {
  /** Worker threads (default: available cores, at most 4). 1 or less replays sequentially. */
  readonly workers?: number;
  /** As for the file reader (default 1 MiB). */
  readonly maxLineBytes?: number;
}

/** The outcome of {@link replayFileParallel}. */
export interface ParallelReplayResult {
  /** A projector holding the whole log, ready for live events. */
  readonly projector: Projector;
  readonly stats: ProjectorStats;
  /** How the replay ran, and why it fell back to one thread if it did. */
  readonly mode: 'parallel' | 'sequential';
  readonly fallbackReason: string | undefined;
}

/** Starts one partition worker and resolves with its report. */
const runWorker = (setup: WorkerSetup): Promise<WorkerReport> =>
  new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./parallel-replay-worker.js', import.meta.url), {
      workerData: setup,
    });
    worker.once('message', resolve);
    worker.once('error', reject);
  });

const sequential = async (
  path: string,
  options: ParallelReplayOptions,
  reason: string,
): Promise<Result<ParallelReplayResult, Halted>> => {
  const projector = createProjector(options);
  const readOptions =
    options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes };
  const replayed = await projector.replay({
    read: (o) => readFileEventLog(path, { ...o, ...readOptions }),
  });
  if (replayed.isErr()) return err(replayed.error);
  return ok({ projector, stats: replayed.value, mode: 'sequential', fallbackReason: reason });
};

const merge = (reports: readonly WorkerReport[]): { snapshot: Snapshot; stats: ProjectorStats } => {
  const [first] = reports as [WorkerReport];
  const all = reports.map((r) => r.snapshot);
  const snapshot: Snapshot = {
    ...first.snapshot,
    checkpoint: Math.max(...all.map((s) => s.checkpoint)),
    signRequests: all.flatMap((s) => s.signRequests),
    participants: all.flatMap((s) => s.participants),
    audit:
      first.snapshot.audit === null
        ? null
        : {
            templates: first.snapshot.audit.templates,
            signRequests: all.flatMap((s) => s.audit?.signRequests ?? []),
          },
    quarantine: all.flatMap((s) => s.quarantine).sort((a, b) => a.position - b.position),
  };
  const stats = { applied: 0, noOps: 0, conflicts: 0, invalid: 0, alreadyApplied: 0 };
  for (const r of reports) {
    for (const key of Object.keys(stats) as (keyof ProjectorStats)[]) stats[key] += r.stats[key];
  }
  return { snapshot, stats };
};

/**
 * Replays a log file using worker threads (see the module comment). Only the
 * `skip` policy runs in parallel; `halt` replays sequentially. File errors
 * reject with {@link EventLogReadError}, as the sequential reader does.
 */
export const replayFileParallel = async (
  path: string,
  options: ParallelReplayOptions = {},
): Promise<Result<ParallelReplayResult, Halted>> => {
  const count = options.workers ?? Math.min(availableParallelism(), 4);
  if (count <= 1) return sequential(path, options, 'one worker requested');
  if (options.policy === 'halt')
    return sequential(path, options, 'the halt policy needs one ordered pass');
  const { workers: _workers, maxLineBytes, ...projectorOptions } = options;
  let reports: WorkerReport[];
  try {
    reports = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        runWorker({
          path,
          index,
          partitions: count,
          maxLineBytes: maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
          options: projectorOptions,
        }),
      ),
    );
  } catch (cause) {
    throw cause instanceof EventLogReadError
      ? cause
      : new EventLogReadError(ioError(cause, path, 'reading'));
  }
  const diverged = reports.find((r) => r.diverged !== undefined)?.diverged;
  if (diverged !== undefined) return sequential(path, options, diverged);
  const { snapshot, stats } = merge(reports);
  const restored = restoreProjector(snapshot, projectorOptions);
  if (restored.isErr()) return sequential(path, options, restored.error.message);
  return ok({ projector: restored.value, stats, mode: 'parallel', fallbackReason: undefined });
};
