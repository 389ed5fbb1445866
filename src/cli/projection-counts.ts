/**
 * Counts by status of the three projections, as the replay summary and its
 * JSON output show them.
 */
import type { ProjectionState } from '../projections/projection-state.js';
import { countSignRequestsByStatus } from '../projections/queries.js';
import type { ParticipantStatus, TemplateStatus } from '../projections/records.js';

/** Records per status in each projection; `total` counts deleted ones too. */
export interface ProjectionCounts {
  readonly templates: Readonly<Record<TemplateStatus | 'total', number>>;
  /** `deleted` requests are counted apart from their last status. */
  readonly signRequests: Readonly<
    Record<'total' | 'draft' | 'sent' | 'completed' | 'declined' | 'deleted', number>
  >;
  readonly participants: Readonly<Record<ParticipantStatus | 'total', number>>;
}

/** Counts the records of `state` by status. */
export const countProjections = (state: ProjectionState): ProjectionCounts => {
  const templates = { total: 0, active: 0, inactive: 0, deleted: 0 };
  for (const t of state.templates.values()) {
    templates.total += 1;
    templates[t.status] += 1;
  }
  const participants = { total: 0, sent: 0, viewed: 0, signed: 0, declined: 0 };
  for (const ofRequest of state.participants.values()) {
    for (const p of ofRequest.values()) {
      participants.total += 1;
      participants[p.status] += 1;
    }
  }
  return {
    templates,
    signRequests: { total: state.signRequests.size, ...countSignRequestsByStatus(state) },
    participants,
  };
};
