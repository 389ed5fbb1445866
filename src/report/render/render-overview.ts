/** The overview section: what became of the records, and what they folded into. */
import type { ProjectionCounts } from '../../core/projections/projection-counts.js';
import { escapeHtml, formatCount } from '../html-text.js';
import type { OverviewModel } from '../model/report-model.js';
import { num, renderTable } from './html-table.js';

const card = (label: string, value: number, metric: string): string =>
  `<div class="card"><span class="muted">${escapeHtml(label)}</span><b data-metric="${metric}" data-value="${value}">${formatCount(value)}</b></div>`;

/** Counts by status of templates, sign requests and participants, as a table. */
export const countsTable = (
  id: string,
  caption: string,
  counts: ProjectionCounts,
  prefix: string,
): string => {
  const row = (
    label: string,
    key: keyof ProjectionCounts,
    record: Readonly<Record<string, number>>,
  ) => ({
    cells: [
      { text: label },
      ...Object.entries(record).map(([status, n]) =>
        num(n, formatCount(n), `${prefix}${key}.${status}`),
      ),
    ],
  });
  const t = counts.templates;
  const r = counts.signRequests;
  const p = counts.participants;
  return [
    renderTable({
      id: `${id}-templates`,
      caption: `${caption}: templates`,
      columns: ['', ...Object.keys(t)],
      rows: [row('templates', 'templates', t)],
      compact: true,
    }),
    renderTable({
      id: `${id}-sign-requests`,
      caption: `${caption}: sign requests (a deleted request counts under deleted only)`,
      columns: ['', ...Object.keys(r)],
      rows: [row('sign requests', 'signRequests', r)],
      compact: true,
    }),
    renderTable({
      id: `${id}-participants`,
      caption: `${caption}: participants`,
      columns: ['', ...Object.keys(p)],
      rows: [row('participants', 'participants', p)],
      compact: true,
    }),
  ].join('\n');
};

/** The overview section. */
export const renderOverview = (overview: OverviewModel): string => {
  const tail =
    overview.incompleteTail === undefined
      ? ''
      : `<p class="note">Incomplete last line: line ${overview.incompleteTail.line} (position ${overview.incompleteTail.position}) was not applied; a writer may still be appending, or a write was cut short.</p>`;
  const problems =
    overview.problemsByKind.length === 0
      ? '<p class="muted">No bad lines, invalid events or conflicts.</p>'
      : renderTable({
          id: 'problems-by-kind',
          caption: 'Quarantined records by kind',
          columns: ['category', 'kind', 'records'],
          compact: true,
          rows: overview.problemsByKind.map((k) => ({
            cells: [{ text: k.category }, { text: k.kind }, num(k.count, formatCount(k.count))],
          })),
        });
  return `<section id="overview"><h2>Overview</h2>
<div class="cards">${card('events processed', overview.processed, 'processed')}${card('applied', overview.applied, 'stats.applied')}${card('no-ops', overview.noOps, 'stats.noOps')}${card('conflicts', overview.conflicts, 'stats.conflicts')}${card('invalid', overview.invalid, 'stats.invalid')}</div>
${tail}
${countsTable('counts', 'By status', overview.counts, 'counts.')}
${problems}
</section>`;
};
