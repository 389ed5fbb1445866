import type { Result } from 'neverthrow';
import type { ProjectionState } from '../core/projections/projection-state.js';
import { createProjector } from './projector.js';
import type { Halted, ProjectorOptions, ReadableLog } from './projector-types.js';

/**
 * Time travel: the projections as of log position `position` (inclusive),
 * replayed from the start of the log.
 *
 * @example
 * ```ts
 * import { getSignRequest, stateAsOf } from 'signfold';
 * import { createMemoryEventLog } from 'signfold/file';
 * import { events } from 'signfold/testing';
 *
 * const log = createMemoryEventLog();
 * await log.append(events.signRequestSent({ signRequestId: 42 })); // position 1
 * await log.append(events.signRequestCompleted({ signRequestId: 42 })); // position 2
 * const before = await stateAsOf(log, 1);
 * console.log(before.map((state) => getSignRequest(state, 42)?.status).unwrapOr('halted')); // sent
 * ```
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
