/**
 * Counts by status of the three projections, as the replay summary, its JSON
 * output and the HTML report show them: for the whole state, or per company.
 */
import type { CompanyId } from '../ids.js';
import type { ProjectionState } from './projection-state.js';
import type { ParticipantStatus, SignRequestView, TemplateStatus } from './records.js';

/** Records per status in each projection; `total` counts deleted ones too. */
export interface ProjectionCounts {
  readonly templates: Readonly<Record<TemplateStatus | 'total', number>>;
  /** `deleted` requests are counted apart from their last status. */
  readonly signRequests: Readonly<
    Record<'total' | 'draft' | 'sent' | 'completed' | 'declined' | 'deleted', number>
  >;
  readonly participants: Readonly<Record<ParticipantStatus | 'total', number>>;
}

type Mutable<T> = { -readonly [K in keyof T]: { -readonly [S in keyof T[K]]: T[K][S] } };

const zero = (): Mutable<ProjectionCounts> => ({
  templates: { total: 0, active: 0, inactive: 0, deleted: 0 },
  signRequests: { total: 0, draft: 0, sent: 0, completed: 0, declined: 0, deleted: 0 },
  participants: { total: 0, sent: 0, viewed: 0, signed: 0, declined: 0 },
});

/** Where a sign request is counted: a deleted one under `deleted` only. */
const signRequestColumn = (r: SignRequestView): 'deleted' | SignRequestView['status'] =>
  r.deleted ? 'deleted' : r.status;

/**
 * Counts in one pass, into the counters `into` picks for a record's company
 * (`undefined` to skip the record).
 */
const tally = (
  state: ProjectionState,
  into: (companyId: CompanyId | null) => Mutable<ProjectionCounts> | undefined,
): void => {
  for (const t of state.templates.values()) {
    const counts = into(t.companyId)?.templates;
    if (counts === undefined) continue;
    counts.total += 1;
    counts[t.status] += 1;
  }
  for (const r of state.signRequests.values()) {
    const counts = into(r.companyId)?.signRequests;
    if (counts === undefined) continue;
    counts.total += 1;
    counts[signRequestColumn(r)] += 1;
  }
  for (const ofRequest of state.participants.values()) {
    for (const p of ofRequest.values()) {
      const counts = into(p.companyId)?.participants;
      if (counts === undefined) continue;
      counts.total += 1;
      counts[p.status] += 1;
    }
  }
};

/** Counts the records of `state` by status. */
export const countProjections = (state: ProjectionState): ProjectionCounts => {
  const counts = zero();
  tally(state, () => counts);
  return counts;
};

/**
 * Counts by status for each company, in one pass. Records without a company
 * (only requests loaded from a representation no event has touched yet) are
 * left out.
 */
export const countProjectionsByCompany = (
  state: ProjectionState,
): ReadonlyMap<CompanyId, ProjectionCounts> => {
  const byCompany = new Map<CompanyId, Mutable<ProjectionCounts>>();
  tally(state, (companyId) => {
    if (companyId === null) return undefined;
    let counts = byCompany.get(companyId);
    if (counts === undefined) {
      counts = zero();
      byCompany.set(companyId, counts);
    }
    return counts;
  });
  return byCompany;
};
