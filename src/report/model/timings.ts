/** Time from `sign-request-sent` to completion or decline, per template and overall. */
import type { ProjectionState } from '../../core/projections/projection-state.js';
import { durationHistogram, summarizeDurations } from './durations.js';
import type { TemplateRow, TemplateTimingRow, TimingsModel } from './report-model.js';
import type { RequestTimes } from './request-times.js';
import { MAX_CHARTED_COMPANIES } from './summary-model.js';

interface Collected {
  readonly completed: number[];
  readonly declined: number[];
}

const timingRow = (
  key: Pick<TemplateTimingRow, 'templateId' | 'name' | 'companyId' | 'open'>,
  collected: Collected,
): TemplateTimingRow => ({
  templateId: key.templateId,
  name: key.name,
  companyId: key.companyId,
  open: key.open,
  completed: summarizeDurations(collected.completed),
  declined: summarizeDurations(collected.declined),
});

/**
 * Timings of the finished, non-deleted requests that have both times, with
 * rows in the order of the template table; `undefined` when none has.
 */
export const buildTimings = (
  state: ProjectionState,
  times: ReadonlyMap<number, RequestTimes>,
  templates: readonly TemplateRow[],
): TimingsModel | undefined => {
  const all: Collected = { completed: [], declined: [] };
  const perTemplate = new Map<number | null, Collected>();
  const perCompany = new Map<number, Collected>();
  for (const request of state.signRequests.values()) {
    if (request.deleted) continue;
    const t = times.get(request.id);
    if (t?.sentAt === undefined || t.finishedAt === undefined || t.outcome === undefined) continue;
    // A final event received before the sent one (delivered out of order) has no duration.
    const ms = t.finishedAt - t.sentAt;
    if (ms < 0) continue;
    const key = request.templateId ?? null;
    let collected = perTemplate.get(key);
    if (collected === undefined) {
      collected = { completed: [], declined: [] };
      perTemplate.set(key, collected);
    }
    collected[t.outcome].push(ms);
    all[t.outcome].push(ms);
    if (request.companyId !== null) {
      let company = perCompany.get(request.companyId);
      if (company === undefined) {
        company = { completed: [], declined: [] };
        perCompany.set(request.companyId, company);
      }
      company[t.outcome].push(ms);
    }
  }
  const measured = all.completed.length + all.declined.length;
  if (measured === 0) return undefined;
  return {
    measured,
    all: timingRow(
      {
        templateId: null,
        name: 'all templates',
        companyId: null,
        open: templates.reduce((sum, row) => sum + row.figures.open, 0),
      },
      all,
    ),
    perTemplate: templates.flatMap((row) => {
      const collected = perTemplate.get(row.templateId);
      return collected === undefined
        ? []
        : [timingRow({ ...row, open: row.figures.open }, collected)];
    }),
    distribution: durationHistogram(all.completed, all.declined),
    perCompany:
      perCompany.size < 2 || perCompany.size > MAX_CHARTED_COMPANIES
        ? []
        : [...perCompany]
            .sort(([a], [b]) => a - b)
            .map(([companyId, collected]) => ({
              companyId,
              all: timingRow(
                {
                  templateId: null,
                  name: `all templates of company ${companyId}`,
                  companyId,
                  open: templates
                    .filter((row) => row.companyId === companyId)
                    .reduce((sum, row) => sum + row.figures.open, 0),
                },
                collected,
              ),
              distribution: durationHistogram(collected.completed, collected.declined),
            })),
  };
};
