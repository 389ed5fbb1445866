/** The timings section: how long requests take from sent to completed or declined. */

import { plural } from '../../core/plural.js';
import { columnChart } from '../charts/column-chart.js';
import { countedText, formatCount, formatDuration } from '../html-text.js';
import type { DurationSummary, TemplateTimingRow, TimingsModel } from '../model/report-model.js';
import { idCell, nameCell, num, type Row, renderTable } from './html-table.js';

const durationCell = (ms: number | undefined) =>
  ms === undefined ? { text: '–', value: -1 } : num(ms, formatDuration(ms));

const summaryCells = (s: DurationSummary) => [
  num(s.count, formatCount(s.count)),
  durationCell(s.medianMs),
  durationCell(s.p90Ms),
];

const rowOf = (t: TemplateTimingRow): Row => ({
  company: t.companyId,
  cells: [
    nameCell(t.name),
    // Templates of different companies may share a name: id and company tell them apart.
    idCell(t.templateId),
    idCell(t.companyId),
    ...summaryCells(t.completed),
    ...summaryCells(t.declined),
    num(t.open, formatCount(t.open)),
  ],
});

/** The distribution of durations: its chart and its table. */
const distributionOf = (suffix: string, bins: TimingsModel['distribution']): string => {
  const chart = columnChart({
    id: `chart-durations${suffix}`,
    title: 'Time from sent to completed or declined',
    series: [
      { name: 'completed', color: 'completed' },
      { name: 'declined', color: 'declined' },
    ],
    xTitle: 'time from sent to the final event',
    yTitle: 'requests',
    bars: bins.map((bin) => ({
      label: bin.label,
      values: [bin.completed, bin.declined],
    })),
  });
  const distribution = renderTable({
    id: `durations-table${suffix}`,
    caption: 'Requests by time from sent to completed or declined',
    columns: ['time', 'completed', 'declined'],
    compact: true,
    rows: bins.map((bin) => ({
      cells: [
        { text: bin.label },
        num(bin.completed, formatCount(bin.completed)),
        num(bin.declined, formatCount(bin.declined)),
      ],
    })),
  });
  return `${chart}\n${distribution}`;
};

/** The section, or a note saying why there is none. */
export const renderTimings = (timings: TimingsModel | undefined): string => {
  if (timings === undefined) {
    return '<section id="timings"><h2>Timings</h2><p class="muted">No request has both a sent and a final time: timings need envelope lines, which carry <code>receivedAt</code>.</p></section>';
  }
  // One distribution for all companies and one per company: the filter shows the chosen one.
  const distributions = [
    `<div data-scope="all">${distributionOf('', timings.distribution)}</div>`,
    ...timings.perCompany.map(
      (c) =>
        `<div data-scope="${c.companyId}" hidden>${distributionOf(`-${c.companyId}`, c.distribution)}</div>`,
    ),
  ].join('\n');
  const perTemplate = renderTable({
    id: 'timings-table',
    caption:
      'Per template: time from the first sign-request-sent to the final event, by receivedAt (median and 90th percentile) of finished requests only; open requests have no time yet and are left out (counted in the last column). Click a header to sort.',
    groups: [
      { label: '', span: 3 },
      { label: 'completed', span: 3 },
      { label: 'declined', span: 3 },
      { label: 'open', span: 1 },
    ],
    columns: [
      'template',
      'id',
      'company',
      'requests',
      'median',
      'p90',
      'requests',
      'median',
      'p90',
      'not timed',
    ],
    rows: timings.perTemplate.map(rowOf),
    sortable: true,
    footer: [
      { ...rowOf(timings.all), company: undefined, scope: 'all' },
      ...timings.perCompany.map((c) => ({
        ...rowOf(c.all),
        company: undefined,
        scope: String(c.companyId),
      })),
    ],
  });
  return `<section id="timings"><h2>Timings</h2>
<p class="note">${countedText(timings.measured, 'finished request')} with both times (from <code>receivedAt</code>). Open requests are left out of every median, p90 and bin here: a template with many open requests can look fast only because its slow ones have not finished; ${countedText(timings.all.open, 'request')} ${plural(timings.all.open, 'is', 'are')} still open (see the Templates and Stuck sections).</p>
${distributions}
${perTemplate}
</section>`;
};
