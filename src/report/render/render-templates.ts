/**
 * The per-template section: which template completes worst (requests by
 * outcome, worst completion of sent first), and the table with the
 * participant funnel. Totals exist once per company (`data-scope`), so the
 * company filter shows the totals of the rows it shows.
 */
import { barChart } from '../charts/bar-chart.js';
import { formatCount, formatRate } from '../html-text.js';
import type { TemplateRow } from '../model/report-model.js';
import { MAX_CHARTED_COMPANIES } from '../model/summary-model.js';
import { type Cell, idCell, nameCell, num, type Row, renderTable } from './html-table.js';

const FUNNEL = [
  { name: 'signed', color: 'signed' },
  { name: 'declined', color: 'declined' },
  { name: 'viewed, no answer yet', color: 'viewed' },
  { name: 'sent, not viewed yet', color: 'not-viewed' },
] as const;

const OUTCOMES = [
  { name: 'completed', color: 'completed' },
  { name: 'declined', color: 'declined' },
  { name: 'open (stuck included)', color: 'open' },
] as const;

const rateCell = (rate: number | undefined): Cell => ({
  text: formatRate(rate),
  value: rate === undefined ? -1 : rate,
});

const ratio = (part: number, whole: number): number | undefined =>
  whole === 0 ? undefined : part / whole;

type Metric = (name: string) => string | undefined;

const counter =
  (metric: Metric) =>
  (value: number, name: string): Cell => {
    const m = metric(name);
    return m === undefined ? num(value, formatCount(value)) : num(value, formatCount(value), m);
  };

/** The outcome cells of a row or a total (counts named by `metric`; rates are not counts). */
const outcomeCells = (t: Totals, metric: Metric): Cell[] => {
  const n = counter(metric);
  const finished = t.completed + t.declined;
  return [
    n(t.requests, 'requests'),
    n(t.completed, 'completed'),
    n(t.declined, 'declined'),
    n(t.open, 'open'),
    n(t.stuck, 'stuck'),
    rateCell(ratio(t.completed, t.requests)),
    rateCell(ratio(t.completed, finished)),
    rateCell(ratio(t.declined, finished)),
  ];
};

/** The participant funnel cells of a row or a total. */
const funnelCells = (t: Totals, metric: Metric): Cell[] => {
  const n = counter(metric);
  return [
    n(t.sent, 'participants.sent'),
    n(t.viewed, 'participants.viewed'),
    n(t.signed, 'participants.signed'),
    n(t.declinedParticipants, 'participants.declined'),
  ];
};

interface Totals {
  requests: number;
  completed: number;
  declined: number;
  open: number;
  stuck: number;
  sent: number;
  viewed: number;
  signed: number;
  declinedParticipants: number;
}

const totalsOf = (rows: readonly TemplateRow[]): Totals => {
  const t: Totals = {
    requests: 0,
    completed: 0,
    declined: 0,
    open: 0,
    stuck: 0,
    sent: 0,
    viewed: 0,
    signed: 0,
    declinedParticipants: 0,
  };
  for (const row of rows) {
    t.requests += row.requests;
    t.completed += row.completed;
    t.declined += row.declined;
    t.open += row.figures.open;
    t.stuck += row.figures.stuck;
    t.sent += row.participants.sent;
    t.viewed += row.participants.viewed;
    t.signed += row.participants.signed;
    t.declinedParticipants += row.participants.declined;
  }
  return t;
};

const rowOf = (t: TemplateRow, cells: (t: Totals, metric: Metric) => Cell[]): Row => ({
  company: t.companyId,
  cells: [
    nameCell(t.name),
    idCell(t.templateId),
    idCell(t.companyId),
    { text: t.status ?? '–' },
    ...cells(totalsOf([t]), () => undefined),
  ],
});

/** Worst completion of sent first (templates with no request last), then by name. */
const worstFirst = (rows: readonly TemplateRow[]): TemplateRow[] =>
  rows
    .filter((t) => t.requests > 0)
    .sort(
      (a, b) =>
        (a.figures.completedOfSent ?? 2) - (b.figures.completedOfSent ?? 2) ||
        b.requests - a.requests ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );

const outcomeChart = (id: string, rows: readonly TemplateRow[], several: boolean): string =>
  barChart({
    id,
    title:
      'Requests per template by outcome, worst completion of sent first (open requests count against it)',
    series: OUTCOMES,
    xTitle: 'template',
    yTitle: 'requests',
    bars: worstFirst(rows).map((t) => ({
      label: t.name,
      ...(several && t.companyId !== null ? { suffix: `(${t.companyId})` } : {}),
      values: [t.completed, t.declined, t.figures.open],
    })),
  });

const funnelChart = (id: string, shown: readonly TemplateRow[], suffix: boolean): string =>
  barChart({
    id,
    title: 'Participants per template (company in parentheses when several): where they stand',
    series: FUNNEL,
    xTitle: 'template',
    yTitle: 'participants',
    bars: shown.map((t) => ({
      label: t.name,
      ...(suffix && t.companyId !== null ? { suffix: `(${t.companyId})` } : {}),
      values: [
        t.participants.signed,
        t.participants.declined,
        t.participants.viewed - t.participants.signed - t.participants.declined,
        t.participants.sent - t.participants.viewed,
      ],
    })),
  });

/** The rows of the section and what every part of it asks of them. */
interface TemplatesSection {
  readonly rows: readonly TemplateRow[];
  /** The companies of the rows, in order. */
  readonly companies: readonly number[];
  /** Several companies: labels and footers say whose. */
  readonly several: boolean;
  /** Few enough companies for a chart each (shown by the company filter). */
  readonly charted: boolean;
}

const sectionOf = (rows: readonly TemplateRow[]): TemplatesSection => {
  // Templates of different companies may share a name: the chart's labels then say whose.
  const companies = [...new Set(rows.map((t) => t.companyId))]
    .filter((c): c is number => c !== null)
    .sort((a, b) => a - b);
  const several = companies.length > 1;
  return {
    rows,
    companies,
    several,
    charted: several && companies.length <= MAX_CHARTED_COMPANIES,
  };
};

type ChartOf = (id: string, rows: readonly TemplateRow[], suffix: boolean) => string;

/** The whole log's chart, shown first, then one per company for the filter (when charted). */
const scopedCharts = (section: TemplatesSection, chart: ChartOf, id: string): string => {
  const { rows, companies, several, charted } = section;
  const perCompany = charted
    ? companies.map(
        (c) =>
          `<div data-scope="${c}" hidden>${chart(
            `${id}-${c}`,
            rows.filter((t) => t.companyId === c),
            false,
          )}</div>`,
      )
    : [];
  return `<div data-scope="all">${chart(id, rows, several)}</div>${perCompany.join('')}`;
};

type CellsOf = (t: Totals, metric: Metric) => Cell[];

/** The totals of the whole log (`scope` null) or of one company, their counts named for the metrics. */
const footerRow = (section: TemplatesSection, cells: CellsOf, scope: number | null): Row => ({
  scope: scope === null ? 'all' : String(scope),
  cells: [
    { text: scope === null ? 'all templates' : `all templates of company ${scope}` },
    { text: '' },
    { text: '' },
    { text: '' },
    ...cells(
      totalsOf(scope === null ? section.rows : section.rows.filter((t) => t.companyId === scope)),
      (name) => (scope === null ? `funnel.${name}` : `company.${scope}.funnel.${name}`),
    ),
  ],
});

const footers = (section: TemplatesSection, cells: CellsOf): Row[] => [
  footerRow(section, cells, null),
  ...(section.several ? section.companies.map((c) => footerRow(section, cells, c)) : []),
];

const outcomeTable = (section: TemplatesSection): string =>
  renderTable({
    id: 'templates-table',
    caption:
      'Per template: requests sent in the period and what became of them (deleted requests left out); completed of sent counts open requests against the template, completed of finished leaves them out. Click a header to sort.',
    groups: [
      { label: '', span: 4 },
      { label: 'requests', span: 5 },
      { label: 'completed', span: 2 },
      { label: 'declined', span: 1 },
    ],
    columns: [
      'template',
      'id',
      'company',
      'status',
      'sent',
      'completed',
      'declined',
      'open',
      'stuck',
      'of sent',
      'of finished',
      'of finished',
    ],
    rows: section.rows.map((t) => rowOf(t, outcomeCells)),
    sortable: true,
    footer: footers(section, outcomeCells),
  });

const funnelTable = (section: TemplatesSection): string =>
  renderTable({
    id: 'funnel-table',
    caption:
      'Per template: the participants of its requests by how far they got, sent → viewed → signed / declined. Click a header to sort.',
    groups: [
      { label: '', span: 4 },
      { label: 'participants', span: 4 },
    ],
    columns: ['template', 'id', 'company', 'status', 'sent', 'viewed', 'signed', 'declined'],
    rows: section.rows.map((t) => rowOf(t, funnelCells)),
    sortable: true,
    footer: footers(section, funnelCells),
  });

/** The section. */
export const renderTemplates = (rows: readonly TemplateRow[]): string => {
  if (rows.length === 0) {
    return '<section id="templates"><h2>Templates</h2><p class="muted">No templates or sign requests.</p></section>';
  }
  const section = sectionOf(rows);
  return `<section id="templates"><h2>Templates: which completes worst</h2>
<p class="note">A template's <em>completed of sent</em> counts its open requests against it; <em>of finished</em> leaves them out, and so do its timings (see Timings), which only finished requests have.</p>
${scopedCharts(section, outcomeChart, 'chart-templates')}
${outcomeTable(section)}
${scopedCharts(section, funnelChart, 'chart-funnel')}
${funnelTable(section)}
</section>`;
};
