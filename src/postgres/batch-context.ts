/** What a partition batch needs to know besides the partition: the worker's settings. */
import type { Reactor } from '../core/reactors/reactor-types.js';
import type { Upcaster } from '../core/upcasters/upcaster-types.js';
import type { ProjectorStats } from '../engine/projector-types.js';
import type { Tracing } from '../engine/tracing.js';
import type { SchemaName } from './schema-name.js';

/** What a batch needs to know besides the partition. */
export interface BatchContext {
  readonly schema: SchemaName;
  readonly workerId: string;
  readonly leaseMs: number;
  readonly batchSize: number;
  readonly strict: boolean;
  /** Applied to each record before it is decoded (see `ProjectionWorkerOptions.upcasters`). */
  readonly upcasters?: readonly Upcaster[];
  /** Called between folding and writing (tests pause a worker there). */
  readonly onFolded?: ((partition: number) => void | Promise<void>) | undefined;
  /** Reactors whose effects are enqueued in the batch's transaction (none: no reactor work at all). */
  readonly reactors?: readonly Reactor[] | undefined;
  /** Told what a batch counted once it committed (metrics): never for a batch rolled back. */
  readonly onProjected?: ((stats: ProjectorStats) => void) | undefined;
  /** Spans of each batch and each record it folds (see batch-trace.ts); enabled only. */
  readonly tracing?: Tracing | undefined;
}
