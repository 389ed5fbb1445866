/**
 * The report's request times, completed by the views. The recorder sees
 * events only: a request whose completion or decline was lost and repaired
 * by an observation has no finishing event, so it would count as completed
 * without a time to complete. Its view knows when (the observation's
 * `fetchedAt`, an upper bound: docs/projections.md), so that fills the gap;
 * times the recorder has are kept, as the views agree with them.
 */
import type { ProjectionState } from '../../core/projections/projection-state.js';
import { type RequestTimes, receivedTime } from './request-times.js';

/** `times` with each finished request's outcome time taken from its view where the events gave none. */
export const timesWithViews = (
  state: ProjectionState,
  times: ReadonlyMap<number, RequestTimes>,
): ReadonlyMap<number, RequestTimes> => {
  let out: Map<number, RequestTimes> | undefined;
  for (const request of state.signRequests.values()) {
    const at =
      request.status === 'completed'
        ? request.completedAt
        : request.status === 'declined'
          ? request.declinedAt
          : null;
    const was = times.get(request.id);
    if (at === null || was?.finishedAt !== undefined) continue;
    const finishedAt = receivedTime(at);
    if (finishedAt === undefined) continue;
    out ??= new Map(times);
    out.set(request.id, {
      ...was,
      sentAt: was?.sentAt ?? receivedTime(request.sentAt ?? undefined),
      finishedAt,
      outcome: request.status === 'completed' ? 'completed' : 'declined',
    });
  }
  return out ?? times;
};
