import type { Result } from 'neverthrow';
import type { ProjectionState } from '../projections/projection-state.js';
import { createProjector } from './projector.js';
import type { Halted, ProjectorOptions, ReadableLog } from './projector-types.js';

/**
 * Time travel: the projections as of log position `position` (inclusive),
 * replayed from the start of the log.
 */
export const stateAsOf = async (
  log: ReadableLog,
  position: number,
  options?: ProjectorOptions,
): Promise<Result<ProjectionState, Halted>> => {
  const projector = createProjector(options);
  const replayed = await projector.replay(log, { until: position });
  // A fresh projector starts at checkpoint 0, which no log lies before: only a halt is possible.
  return replayed.map(() => projector.state()).mapErr((e) => e as Halted);
};
