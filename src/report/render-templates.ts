/** The per-template section: the funnel chart and the sortable table. */
import { barChart } from './bar-chart.js';
import { idCell, nameCell, num, type Row, renderTable } from './html-table.js';
import { formatCount, formatRate } from './html-text.js';
import type { TemplateRow } from './report-model.js';

const SERIES = [
  { name: 'signed', color: 'signed' },
  { name: 'declined', color: 'declined' },
  { name: 'viewed, no answer yet', color: 'viewed' },
  { name: 'sent, not viewed yet', color: 'not-viewed' },
] as const;

const rateCell = (rate: number | undefined) => ({
  text: formatRate(rate),
  value: rate === undefined ? -1 : rate,
});

const rowOf = (t: TemplateRow): Row => {
  const p = t.participants;
  return {
    company: t.companyId,
    cells: [
      nameCell(t.name),
      idCell(t.templateId),
      idCell(t.companyId),
      { text: t.status ?? '–' },
      num(t.requests, formatCount(t.requests)),
      num(t.completed, formatCount(t.completed)),
      num(t.declined, formatCount(t.declined)),
      rateCell(t.completionRate),
      rateCell(t.declineRate),
      num(p.sent, formatCount(p.sent)),
      num(p.viewed, formatCount(p.viewed)),
      num(p.signed, formatCount(p.signed)),
      num(p.declined, formatCount(p.declined)),
    ],
  };
};

const sum = (rows: readonly TemplateRow[], pick: (row: TemplateRow) => number): number =>
  rows.reduce((total, row) => total + pick(row), 0);

/** The section; the chart shows where each template's participants stand. */
export const renderTemplates = (rows: readonly TemplateRow[]): string => {
  if (rows.length === 0) {
    return '<section id="templates"><h2>Templates</h2><p class="muted">No templates or sign requests.</p></section>';
  }
  // Templates of different companies may share a name: the chart's labels then say whose.
  const severalCompanies = new Set(rows.map((t) => t.companyId)).size > 1;
  const chart = barChart({
    id: 'chart-funnel',
    title: 'Participants per template (company in parentheses when several): where they stand',
    series: SERIES,
    xTitle: 'template',
    yTitle: 'participants',
    bars: rows.map((t) => ({
      label: t.name,
      ...(severalCompanies && t.companyId !== null ? { suffix: `(${t.companyId})` } : {}),
      values: [
        t.participants.signed,
        t.participants.declined,
        t.participants.viewed - t.participants.signed - t.participants.declined,
        t.participants.sent - t.participants.viewed,
      ],
    })),
  });
  const total = (pick: (row: TemplateRow) => number, metric: string) => {
    const n = sum(rows, pick);
    return num(n, formatCount(n), metric);
  };
  const completed = sum(rows, (t) => t.completed);
  const declined = sum(rows, (t) => t.declined);
  const finished = completed + declined;
  const table = renderTable({
    id: 'templates-table',
    caption:
      'Per template: requests sent and their outcome (rates among finished requests), and the participant funnel sent → viewed → signed / declined (deleted requests left out). Click a header to sort.',
    columns: [
      'template',
      'id',
      'company',
      'status',
      'requests',
      'completed',
      'declined',
      'completion rate',
      'decline rate',
      'participants sent',
      'viewed',
      'signed',
      'declined',
    ],
    rows: rows.map(rowOf),
    sortable: true,
    footer: {
      cells: [
        { text: 'all templates' },
        { text: '' },
        { text: '' },
        { text: '' },
        total((t) => t.requests, 'funnel.requests'),
        total((t) => t.completed, 'funnel.completed'),
        total((t) => t.declined, 'funnel.declined'),
        { text: formatRate(finished === 0 ? undefined : completed / finished) },
        { text: formatRate(finished === 0 ? undefined : declined / finished) },
        total((t) => t.participants.sent, 'funnel.participants.sent'),
        total((t) => t.participants.viewed, 'funnel.participants.viewed'),
        total((t) => t.participants.signed, 'funnel.participants.signed'),
        total((t) => t.participants.declined, 'funnel.participants.declined'),
      ],
    },
  });
  return `<section id="templates"><h2>Templates: the funnel</h2>\n${chart}\n${table}\n</section>`;
};
