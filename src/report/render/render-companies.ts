/** The per-company section and the company filter, shown when the log has several companies. */

import { formatCount, formatRate } from '../html-text.js';
import type { CompanyRow } from '../model/report-model.js';
import { MAX_CHARTED_COMPANIES } from '../model/summary-model.js';
import { num, renderTable } from './html-table.js';

/** The filter: a `<select>` the page's script uses to hide other companies' rows. */
export const renderCompanyFilter = (companies: readonly CompanyRow[]): string =>
  companies.length < 2
    ? ''
    : `<div class="controls"><label>Company: <select id="company-filter"><option value="">all ${companies.length} companies</option>${companies
        .map((c) => `<option value="${c.companyId}">company ${c.companyId}</option>`)
        .join(
          '',
        )}</select></label> <span class="muted">(recomputes the summary, the templates' totals${companies.length <= MAX_CHARTED_COMPANIES ? ' and charts, the timings, the trend' : ''}, the open and stuck figures, and shows only its rows in the tables; the overview, ${companies.length <= MAX_CHARTED_COMPANIES ? '' : `the charts (with more than ${MAX_CHARTED_COMPANIES} companies), `}the conflicts, the events by type and the quarantine cover the whole log)</span></div>`;

/** The section (empty for a single company: the overview already says it all). */
export const renderCompanies = (companies: readonly CompanyRow[]): string => {
  if (companies.length < 2) return '';
  const table = renderTable({
    id: 'companies-table',
    caption:
      'Per company: records by status, completion rate among finished requests, stuck requests',
    columns: [
      'company',
      'templates',
      'sign requests',
      'sent',
      'completed',
      'declined',
      'deleted',
      'participants',
      'signed',
      'declined',
      'completion rate',
      'stuck',
    ],
    rows: companies.map((c) => {
      const r = c.counts.signRequests;
      const p = c.counts.participants;
      const n = (value: number) => num(value, formatCount(value));
      return {
        company: c.companyId,
        cells: [
          num(c.companyId, String(c.companyId)),
          n(c.counts.templates.total),
          n(r.total),
          n(r.sent),
          n(r.completed),
          n(r.declined),
          n(r.deleted),
          n(p.total),
          n(p.signed),
          n(p.declined),
          { text: formatRate(c.completionRate), value: c.completionRate ?? -1 },
          n(c.stuck),
        ],
      };
    }),
    sortable: true,
  });
  return `<section id="companies"><h2>Companies</h2>\n${table}\n</section>`;
};
