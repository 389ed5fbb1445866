import type { ProjectorOptions, ProjectorStats } from '../engine/projector-types.js';
import type { Snapshot } from '../engine/snapshot.js';

/** Given to each worker of a parallel replay. */
export interface WorkerSetup {
  readonly path: string;
  readonly index: number;
  readonly partitions: number;
  readonly maxLineBytes: number;
  readonly options: ProjectorOptions;
}

/** A worker's report: its partition as a snapshot. */
export interface WorkerReport {
  readonly snapshot: Snapshot;
  readonly stats: ProjectorStats;
  /** Why this worker's result cannot be trusted to equal a sequential replay. */
  readonly diverged: string | undefined;
}
