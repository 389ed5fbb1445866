/** The one line that sums up how far the projection has got, for `pg work` and `pg status`. */
import { counted } from '../../core/plural.js';
import type { WorkerProgress } from '../../postgres/index.js';

/** `projected up to position N: A applied, …`: the counters of a worker run, or of every partition. */
export const projectionSummary = (
  progress: Pick<WorkerProgress, 'checkpoint' | 'applied' | 'noOps' | 'conflicts' | 'invalid'>,
): string =>
  `projected up to position ${progress.checkpoint}: ${progress.applied} applied, ` +
  `${counted(progress.noOps, 'no-op')}, ${counted(progress.conflicts, 'conflict')}, ${progress.invalid} invalid`;
