/** The two long lists: stuck requests and the quarantine (each cut at 1,000 rows, totals shown). */
import { nameCell, num, renderTable } from './html-table.js';
import { escapeHtml, formatCount, formatDuration } from './html-text.js';
import type { QuarantineModel, StuckModel } from './report-model.js';

/** The stuck-requests section. */
export const renderStuck = (stuck: StuckModel): string => {
  const threshold = formatDuration(stuck.thresholdMs);
  if (stuck.asOf === undefined) {
    return `<section id="stuck"><h2>Stuck requests</h2><p class="muted">No event has a <code>receivedAt</code>: stuck requests cannot be told.</p></section>`;
  }
  const intro = `<p class="note"><span data-metric="stuck.total" data-value="${stuck.total}">${formatCount(stuck.total)}</span> requests <code>sent</code> for more than ${escapeHtml(threshold)} without a final event, as of the latest <code>receivedAt</code> in the log, ${escapeHtml(stuck.asOf)}.</p>`;
  if (stuck.total === 0) return `<section id="stuck"><h2>Stuck requests</h2>${intro}</section>`;
  const table = renderTable({
    id: 'stuck-table',
    caption: 'Stuck requests, oldest first, with the participants still to act',
    total: stuck.total,
    columns: [
      'sign request',
      'name',
      'company',
      'template',
      'sent at',
      'age',
      'awaiting',
      'inspect',
    ],
    rows: stuck.listed.map((r) => ({
      company: r.companyId,
      cells: [
        num(r.id, String(r.id)),
        nameCell(r.name),
        r.companyId === null ? { text: '–' } : num(r.companyId, String(r.companyId)),
        r.templateName === undefined ? { text: '–' } : nameCell(r.templateName),
        { text: r.sentAt },
        num(r.ageMs, formatDuration(r.ageMs)),
        {
          text:
            r.awaiting.length === 0
              ? '–'
              : r.awaiting.map((p) => `${p.id} ${p.name} (${p.status})`).join(', '),
        },
        { text: `<code>${escapeHtml(r.inspectCommand)}</code>`, html: true },
      ],
    })),
    sortable: true,
  });
  return `<section id="stuck"><h2>Stuck requests</h2>${intro}\n${table}\n</section>`;
};

/** The quarantine section. */
export const renderQuarantine = (quarantine: QuarantineModel): string => {
  const intro = `<p class="note"><span data-metric="quarantine.total" data-value="${quarantine.total}">${formatCount(quarantine.total)}</span> records set aside: bad lines, invalid events and conflicts (state untouched by them).</p>`;
  if (quarantine.total === 0)
    return `<section id="quarantine"><h2>Quarantine</h2>${intro}</section>`;
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
  return `<section id="quarantine"><h2>Quarantine</h2>${intro}\n${table}\n</section>`;
};
