import type { ProjectionState } from '../../src/core/projections/projection-state.js';

/** A state's records as id-sorted arrays: comparable whatever order the collections were built in. */
export const sortedRecords = (state: ProjectionState) => ({
  templates: [...state.templates.values()].sort((a, b) => a.id - b.id),
  signRequests: [...state.signRequests.values()].sort((a, b) => a.id - b.id),
  participants: [...state.participants.values()]
    .flatMap((ofRequest) => [...ofRequest.values()])
    .sort((a, b) => a.signRequestId - b.signRequestId || a.id - b.id),
});

type Records = ReturnType<typeof sortedRecords>;
const untimed = <T extends object>(record: T) => {
  const {
    sentAt: _s,
    viewedAt: _v,
    signedAt: _g,
    completedAt: _c,
    declinedAt: _d,
    deletedAt: _x,
    outcomeFrom: _o,
    lastEventAt: _l,
    ...rest
  } = record as T & Record<string, unknown>;
  return rest;
};

/**
 * {@link sortedRecords} without the views' times: for paths that store the
 * same events at other times (a webhook receiver stamps its own arrival time),
 * where only the times may differ from the reference.
 */
export const untimedRecords = (records: Records) => ({
  templates: records.templates,
  signRequests: records.signRequests.map(untimed),
  participants: records.participants.map(untimed),
});
