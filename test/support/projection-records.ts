import type { ProjectionState } from '../../src/projections/projection-state.js';

/** A state's records as id-sorted arrays: comparable whatever order the collections were built in. */
export const sortedRecords = (state: ProjectionState) => ({
  templates: [...state.templates.values()].sort((a, b) => a.id - b.id),
  signRequests: [...state.signRequests.values()].sort((a, b) => a.id - b.id),
  participants: [...state.participants.values()]
    .flatMap((ofRequest) => [...ofRequest.values()])
    .sort((a, b) => a.signRequestId - b.signRequestId || a.id - b.id),
});
