/**
 * The quarantine section: what broke in ingestion, grouped so that 400
 * near-identical records read as one line (kind, message, count, first and
 * last time, a delivery id to look up), then the records themselves in log
 * order (the first 1,000).
 */

import { plural } from '../../core/plural.js';
import { formatCount } from '../html-text.js';
import type { QuarantineModel } from '../model/report-model.js';
import { num, renderTable } from './html-table.js';

/** The quarantine section. */
export const renderQuarantine = (quarantine: QuarantineModel): string => {
  const intro = `<p class="note"><span data-metric="quarantine.total" data-value="${quarantine.total}">${formatCount(quarantine.total)}</span> ${plural(quarantine.total, 'record')} set aside: bad lines, invalid events and conflicts (state untouched by them). Messages that differ only in their numbers (ids, positions) form one group, shown with <code>#</code> for the numbers.</p>`;
  if (quarantine.total === 0)
    return `<section id="quarantine"><h2>Quarantine</h2>${intro}</section>`;
  const groups = renderTable({
    id: 'quarantine-groups-table',
    caption: 'Quarantined records by kind and message, most first',
    groups: [
      { label: '', span: 4 },
      { label: 'received', span: 2 },
      { label: 'sample', span: 2 },
    ],
    columns: ['category', 'kind', 'message', 'records', 'first', 'last', 'position', 'delivery id'],
    rows: quarantine.groups.map((g) => ({
      cells: [
        { text: g.category },
        { text: g.kind },
        { text: g.message },
        num(g.count, formatCount(g.count)),
        { text: g.first ?? '–' },
        { text: g.last ?? '–' },
        num(g.samplePosition, String(g.samplePosition)),
        { text: g.sampleDeliveryId ?? '–' },
      ],
    })),
    sortable: true,
  });
  const table = renderTable({
    id: 'quarantine-table',
    caption: 'Quarantined records in log order',
    total: quarantine.total,
    columns: ['position', 'line', 'category', 'kind', 'message'],
    rows: quarantine.listed.map((q) => ({
      cells: [
        num(q.position, String(q.position)),
        q.line === undefined ? { text: '–' } : num(q.line, String(q.line)),
        { text: q.category },
        { text: q.kind },
        { text: q.message },
      ],
    })),
    sortable: true,
  });
  return `<section id="quarantine"><h2>Quarantine</h2>${intro}\n${groups}\n${table}\n</section>`;
};
