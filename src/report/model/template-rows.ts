/**
 * The per-template rows of the report: the figures of the requests of the
 * period made from each template (see `request-figures.ts`), and the
 * participant funnel sent → viewed → signed / declined.
 */
import type { TemplateId } from '../../core/ids.js';
import type { ProjectionState } from '../../core/projections/projection-state.js';
import type { ParticipantStatus, ParticipantView } from '../../core/projections/records.js';
import { participantMove } from '../../core/projections/status-rules.js';
import type { ParticipantFunnel, TemplateRow } from './report-model.js';
import { type ClassifiedRequest, figuresOf, groupRequests } from './request-figures.js';

type MutableFunnel = { -readonly [K in keyof ParticipantFunnel]: number };

const emptyFunnel = (): MutableFunnel => ({
  sent: 0,
  viewed: 0,
  signed: 0,
  declined: 0,
  waiting: 0,
});

/** Per status: at `viewed` or beyond (the lifecycle refuses, or ignores, a move back to `viewed`). */
const viewedOrBeyond = new Map<ParticipantStatus, boolean>();

const atViewedOrBeyond = (status: ParticipantStatus): boolean => {
  let at = viewedOrBeyond.get(status);
  if (at === undefined) {
    at = participantMove(status, 'viewed') !== 'forward';
    viewedOrBeyond.set(status, at);
  }
  return at;
};

const countParticipant = (funnel: MutableFunnel, p: ParticipantView): void => {
  funnel.sent += 1;
  // Asked once per status, not once per participant.
  if (atViewedOrBeyond(p.status)) funnel.viewed += 1;
  if (p.status === 'signed') funnel.signed += 1;
  else if (p.status === 'declined') funnel.declined += 1;
  else funnel.waiting += 1;
};

/**
 * The funnel of each template, in one pass over the participants (as the
 * projection holds them): a lookup per request is several times slower.
 */
const funnelsOf = (state: ProjectionState, requests: readonly ClassifiedRequest[]) => {
  const templateOf = new Map<number, TemplateId | null>();
  for (const { request } of requests) templateOf.set(request.id, request.templateId ?? null);
  const funnels = new Map<TemplateId | null, MutableFunnel>();
  for (const [requestId, participants] of state.participants) {
    const key = templateOf.get(requestId);
    if (key === undefined) continue;
    let funnel = funnels.get(key);
    if (funnel === undefined) {
      funnel = emptyFunnel();
      funnels.set(key, funnel);
    }
    for (const p of participants.values()) countParticipant(funnel, p);
  }
  return funnels;
};

/**
 * One row per template (in first-seen order, then templates only requests
 * name), then one for requests that name no template, if any. `requests`
 * are those of the period (`classifyRequests`): deleted ones are left out,
 * as `templateStats` leaves them out.
 */
export const templateRows = (
  state: ProjectionState,
  requests: readonly ClassifiedRequest[],
): TemplateRow[] => {
  const groups = groupRequests(requests, (r) => r.request.templateId ?? null);
  const funnels = funnelsOf(state, requests);
  const names = new Map<TemplateId, string>();
  const companies = new Map<TemplateId, number | null>();
  const ids: (TemplateId | null)[] = [...state.templates.keys()];
  for (const r of state.signRequests.values()) {
    const id = r.templateId;
    if (id === undefined || names.has(id)) continue;
    if (r.templateName !== undefined) names.set(id, r.templateName);
    companies.set(id, r.companyId);
  }
  for (const id of groups.keys()) if (id !== null && !state.templates.has(id)) ids.push(id);
  const rowOf = (id: TemplateId | null): TemplateRow => {
    const list = groups.get(id) ?? [];
    const figures = figuresOf(list);
    const template = id === null ? undefined : state.templates.get(id);
    const requestCompanies = new Set(list.map((r) => r.request.companyId));
    return {
      templateId: id,
      name: id === null ? '(no template)' : (template?.name ?? names.get(id) ?? `template ${id}`),
      companyId:
        template?.companyId ??
        (id === null
          ? requestCompanies.size === 1
            ? ([...requestCompanies][0] ?? null)
            : null
          : (companies.get(id) ?? null)),
      status: template?.status,
      requests: figures.sent,
      completed: figures.completed,
      declined: figures.declined,
      completionRate: figures.completedOfFinished,
      declineRate: figures.declinedOfFinished,
      participants: funnels.get(id) ?? emptyFunnel(),
      figures,
    };
  };
  const rows = ids.map(rowOf);
  if (groups.has(null)) rows.push(rowOf(null));
  return rows;
};
