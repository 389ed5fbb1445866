/** The activity section: events received per period by type, and conflicts. */
import { columnChart } from './column-chart.js';
import { num, renderTable } from './html-table.js';
import { formatCount } from './html-text.js';
import type { ActivityModel } from './report-model.js';

/** The section, or a note saying why there is none. */
export const renderActivity = (activity: ActivityModel | undefined): string => {
  if (activity === undefined) {
    return '<section id="activity"><h2>Activity</h2><p class="muted">No event has a <code>receivedAt</code> (bare lines only): no activity over time.</p></section>';
  }
  const per = activity.unit;
  const series = activity.types.map((name, index) => ({ name, color: index % 12 }));
  const events = columnChart({
    id: 'chart-activity',
    title: `Events received per ${per}, by type`,
    series,
    bars: activity.rows.map((row) => ({ label: row.period, values: row.byType })),
  });
  const conflicts = columnChart({
    id: 'chart-conflicts',
    title: `Conflicts per ${per}`,
    series: [{ name: 'conflicts', color: 3 }],
    bars: activity.rows.map((row) => ({ label: row.period, values: [row.conflicts] })),
  });
  const table = renderTable({
    id: 'activity-table',
    caption: `Events received per ${per} (UTC) by type, and conflicts among them`,
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
<p class="note">Decoded events by the <code>receivedAt</code> of their line; bad lines and invalid events are counted in the overview only.</p>
${events}
${conflicts}
${table}
</section>`;
};
