/**
 * How a projection differs from the service's truth (the emulator's, src/emulator/), as readable lines: what the end-to-end tests hold to be empty.
 */
import type { ProjectionState } from '../../src/core/projections/projection-state.js';
import type { ServiceTruth } from '../../src/emulator/index.js';

/** Every way `state` differs from the service's truth, as readable lines (empty: they agree). */
export const truthDifferences = (state: ProjectionState, truth: ServiceTruth): string[] => {
  const found: string[] = [];
  for (const template of truth.templates) {
    const projected = state.templates.get(template.id as never)?.status;
    if (projected !== template.status) {
      found.push(`template ${template.id}: ${projected} ≠ ${template.status}`);
    }
  }
  for (const request of truth.signRequests) {
    const projected = state.signRequests.get(request.id as never);
    // A draft emits nothing: a receiver cannot know of it. A deleted request's status is not
    // what counts (the API answers 404 for it): only that it is deleted.
    if (request.status === 'draft' && !request.deleted) {
      if (projected !== undefined) found.push(`request ${request.id}: a draft was projected`);
      continue;
    }
    if (projected?.deleted !== request.deleted) {
      found.push(`request ${request.id}: deleted ${projected?.deleted} ≠ ${request.deleted}`);
      continue;
    }
    if (request.deleted) continue;
    if (projected.status !== request.status) {
      found.push(`request ${request.id}: ${projected.status} ≠ ${request.status}`);
    }
    // A participant the request was not sent to yet has had no event: nobody can know of it.
    const sentTo = request.participants.filter((p) => p.status !== null).length;
    const participants = state.participants.get(request.id as never);
    if ((participants?.size ?? 0) !== sentTo) {
      found.push(`request ${request.id}: ${participants?.size ?? 0} participants projected`);
    }
    for (const participant of request.participants) {
      const status = participants?.get(participant.id as never)?.status ?? null;
      if (status !== participant.status) {
        found.push(
          `participant ${request.id}/${participant.id}: ${status} ≠ ${participant.status}`,
        );
      }
    }
  }
  return found;
};
