/**
 * The activity section: the trend (requests sent and completed per period,
 * and the completion of those sent), conflicts over time, and the events
 * received per period by type as a table (the engineer's view, kept for
 * the record but not charted).
 */
import { columnChart } from '../charts/column-chart.js';
import { completionChart, volumeChart } from '../charts/trend-chart.js';
import { escapeHtml, formatCount, formatRate } from '../html-text.js';
import type { ActivityModel } from '../model/report-model.js';
import { completionShare, type TrendModel } from '../model/trend.js';
import { num, renderTable } from './html-table.js';

const trendTable = (trend: TrendModel, suffix = ''): string =>
  renderTable({
    id: `trend-table${suffix}`,
    caption: `Requests per ${trend.unit} (UTC): sent, completed, and of those sent in the ${trend.unit} how many completed by the end of the log`,
    columns: [trend.unit, 'sent', 'completed', 'completed', 'share'],
    groups: [
      { label: '', span: 1 },
      { label: 'in the period', span: 2 },
      { label: 'of those sent', span: 2 },
    ],
    rows: trend.rows.map((row) => {
      const share = completionShare(row);
      return {
        cells: [
          { text: row.period },
          num(row.sent, formatCount(row.sent)),
          num(row.completed, formatCount(row.completed)),
          num(row.completedOfSent, formatCount(row.completedOfSent)),
          num(share ?? -1, formatRate(share)),
        ],
      };
    }),
    sortable: true,
  });

/** The section, or a note saying why there is none. */
export const renderActivity = (
  activity: ActivityModel | undefined,
  trend: TrendModel | undefined,
  asOf: string | undefined,
  byCompany: readonly { readonly companyId: number; readonly trend: TrendModel }[] = [],
): string => {
  if (activity === undefined) {
    return '<section id="activity"><h2>Activity</h2><p class="muted">No event has a <code>receivedAt</code> (bare lines only): no activity over time.</p></section>';
  }
  const per = activity.unit;
  const trendPart =
    trend === undefined
      ? '<p class="muted">No sign request has a sent time: no trend.</p>'
      : `<div data-scope="all">${volumeChart(trend, 'chart-volume')}\n${completionChart(trend, 'chart-completion', asOf ?? 'the end of the log')}\n${trendTable(trend)}</div>${byCompany
          .map(
            // Each company's trend for the company filter (its requests only), hidden until chosen.
            ({ companyId: c, trend: t }) =>
              `<div data-scope="${c}" hidden>${volumeChart(t, `chart-volume-${c}`)}\n${completionChart(t, `chart-completion-${c}`, asOf ?? 'the end of the log')}\n${trendTable(t, `-${c}`)}</div>`,
          )
          .join('')}`;
  const conflicts = columnChart(
    {
      id: 'chart-conflicts',
      title: `Conflicts per ${per} (UTC)`,
      series: [{ name: 'conflicts', color: 'conflict' }],
      bars: activity.rows.map((row) => ({ label: row.period, values: [row.conflicts] })),
      xTitle: `${per} received (UTC)`,
      yTitle: `conflicts per ${per}`,
    },
    'none in this log',
  );
  const table = renderTable({
    id: 'activity-table',
    caption: `Events received per ${per} (UTC) by type, and conflicts among them (redeliveries included)`,
    columns: [per, ...activity.types, 'total', 'conflicts'],
    rows: activity.rows.map((row) => ({
      cells: [
        { text: row.period },
        ...row.byType.map((n) => num(n, formatCount(n))),
        num(row.total, formatCount(row.total)),
        num(row.conflicts, formatCount(row.conflicts)),
      ],
    })),
    sortable: true,
  });
  return `<section id="activity"><h2>Activity</h2>
<p class="note">Requests by the <code>receivedAt</code> of their first applied <code>sign-request-sent</code> and of their completion${asOf === undefined ? '' : `, up to ${escapeHtml(asOf)}`}.</p>
${trendPart}
<h3>Conflicts and events by type</h3>
<p class="note">Decoded events by the <code>receivedAt</code> of their line; bad lines and invalid events are counted in the overview only.</p>
${conflicts}
${table}
</section>`;
};
