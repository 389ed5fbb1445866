/**
 * The per-template table: requests and their outcome (from the core's
 * `templateStats`) and the participant funnel sent → viewed → signed / declined.
 */
import type { TemplateId } from '../ids.js';
import type { ProjectionState } from '../projections/projection-state.js';
import { templateStats } from '../projections/queries.js';
import type { ParticipantView } from '../projections/records.js';
import { participantMove, signRequestMove } from '../projections/status-rules.js';
import type { ParticipantFunnel, TemplateRow } from './report-model.js';

type MutableFunnel = { -readonly [K in keyof ParticipantFunnel]: number };

const emptyFunnel = (): MutableFunnel => ({
  sent: 0,
  viewed: 0,
  signed: 0,
  declined: 0,
  waiting: 0,
});

const countParticipant = (funnel: MutableFunnel, p: ParticipantView): void => {
  funnel.sent += 1;
  // At `viewed` or beyond: the lifecycle refuses (or ignores) a move back to `viewed`.
  if (participantMove(p.status, 'viewed') !== 'forward') funnel.viewed += 1;
  if (p.status === 'signed') funnel.signed += 1;
  else if (p.status === 'declined') funnel.declined += 1;
  else funnel.waiting += 1;
};

const ratio = (part: number, whole: number): number | undefined =>
  whole === 0 ? undefined : part / whole;

/**
 * One row per template (in first-seen order), then one for requests that name
 * no template, if any. Deleted requests and their participants are left out,
 * as `templateStats` leaves them out.
 */
export const templateRows = (state: ProjectionState): TemplateRow[] => {
  const funnels = new Map<TemplateId | null, MutableFunnel>();
  for (const [requestId, participants] of state.participants) {
    const request = state.signRequests.get(requestId);
    if (request === undefined || request.deleted) continue;
    const key = request.templateId ?? null;
    let funnel = funnels.get(key);
    if (funnel === undefined) {
      funnel = emptyFunnel();
      funnels.set(key, funnel);
    }
    for (const p of participants.values()) countParticipant(funnel, p);
  }
  const stats = new Map(templateStats(state).map((s) => [s.templateId, s]));
  const ids: (TemplateId | null)[] = [...state.templates.keys()];
  for (const id of stats.keys()) if (!state.templates.has(id)) ids.push(id);
  const { names, withoutTemplate } = scanRequests(state);
  const rows: TemplateRow[] = ids.map((id) => {
    const template = id === null ? undefined : state.templates.get(id);
    const s = id === null ? undefined : stats.get(id);
    const completed = s?.completed ?? 0;
    const declined = s?.declined ?? 0;
    return {
      templateId: id,
      name: template?.name ?? (id === null ? undefined : names.get(id)) ?? `template ${id}`,
      companyId: template?.companyId ?? s?.companyId ?? null,
      status: template?.status,
      requests: s?.sent ?? 0,
      completed,
      declined,
      completionRate: s?.completionRate,
      declineRate: ratio(declined, completed + declined),
      participants: funnels.get(id) ?? emptyFunnel(),
    };
  });
  if (withoutTemplate.requests > 0 || funnels.has(null)) {
    const { requests, completed, declined, companies } = withoutTemplate;
    rows.push({
      templateId: null,
      name: '(no template)',
      companyId: companies.size === 1 ? ([...companies][0] ?? null) : null,
      status: undefined,
      requests,
      completed,
      declined,
      completionRate: ratio(completed, completed + declined),
      declineRate: ratio(declined, completed + declined),
      participants: funnels.get(null) ?? emptyFunnel(),
    });
  }
  return rows;
};

/**
 * In one pass over the requests: the template names they carry (for
 * templates the log never activated), and the requests that name no template.
 */
const scanRequests = (state: ProjectionState) => {
  const names = new Map<TemplateId, string>();
  const withoutTemplate = { requests: 0, completed: 0, declined: 0, companies: new Set<number>() };
  for (const r of state.signRequests.values()) {
    if (r.templateId !== undefined) {
      if (r.templateName !== undefined && !names.has(r.templateId)) {
        names.set(r.templateId, r.templateName);
      }
      continue;
    }
    if (r.deleted) continue;
    // Reached `sent` or beyond, as `templateStats` counts requests.
    if (signRequestMove(r.status, 'sent') !== 'forward') withoutTemplate.requests += 1;
    if (r.status === 'completed') withoutTemplate.completed += 1;
    if (r.status === 'declined') withoutTemplate.declined += 1;
    if (r.companyId !== null) withoutTemplate.companies.add(r.companyId);
  }
  return { names, withoutTemplate };
};
