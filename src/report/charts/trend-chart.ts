/**
 * The two trend charts: sent and completed per period side by side (volume),
 * and the completion of the requests sent in each period (a step line,
 * 0–100 %). The x axis is time: ticks on round UTC boundaries from d3,
 * fewer on a phone, so labels never run together.
 */

import { type CountableTimeInterval, utcDay, utcHour, utcMonth, utcYear } from 'd3-time';
import { formatCount } from '../html-text.js';
import { completionShare, type TrendModel, type TrendUnit } from '../model/trend.js';
import { chartBox, PLOT_HEIGHT, TOP, type XLabel, yOf } from './chart-box.js';
import { colourClass } from './chart-colours.js';
import { countAxis, shareAxis, type TimeTick, timeTicks } from './chart-scales.js';
import { type ChartSpec, legend, PLOT_WIDTH, plot, px, rect } from './svg-chart.js';

const WIDE_TICKS = 8;
/** No tick finer than this, per unit (weeks tick on days: months do not start on Mondays). */
const FINEST: Readonly<Record<TrendUnit, CountableTimeInterval>> = {
  hour: utcHour,
  day: utcDay,
  week: utcDay,
  month: utcMonth,
  year: utcYear,
};
const NARROW_TICKS = 3;

/** `2025-10-12 08:00 to 2025-10-12 09:00`: the periods the axis covers. */
const spanText = (trend: TrendModel): string => {
  const first = trend.rows[0]?.period ?? '';
  const last = trend.rows[trend.rows.length - 1]?.period ?? first;
  return first === last ? first : `${first} to ${last}`;
};

/** Labels of both tick sets, each once, flagged by where it shows. */
const xLabels = (trend: TrendModel, start: number, end: number): XLabel[] => {
  const wide = timeTicks(start, end, WIDE_TICKS, FINEST[trend.unit]);
  const narrow = timeTicks(start, end, NARROW_TICKS, FINEST[trend.unit]);
  const key = (tick: TimeTick) => `${tick.at}`;
  const narrowKeys = new Set(narrow.map(key));
  const wideKeys = new Set(wide.map(key));
  return [
    ...wide.map((tick) => ({ ...tick, wide: true, narrow: narrowKeys.has(key(tick)) })),
    ...narrow
      .filter((tick) => !wideKeys.has(key(tick)))
      .map((tick) => ({ ...tick, wide: false, narrow: true })),
  ];
};

/** Sent and completed per period, as pairs of columns. */
export const volumeChart = (trend: TrendModel, id: string): string => {
  const rows = trend.rows;
  const start = rows[0]?.start ?? 0;
  const end = rows[rows.length - 1]?.end ?? start + 1;
  const span = end - start;
  const spec: ChartSpec = {
    id,
    title: `Requests sent and completed per ${trend.unit} (UTC)`,
    series: [
      { name: 'sent', color: 'sent' },
      { name: 'completed', color: 'completed' },
    ],
    bars: [],
    xTitle: `${trend.unit} (UTC), ${spanText(trend)}`,
    yTitle: `requests per ${trend.unit}`,
  };
  const axis = countAxis(rows.reduce((most, r) => Math.max(most, r.sent, r.completed), 0));
  // Tooltips cost bytes: a long trend relies on its table instead.
  const tooltips = rows.length <= 200;
  const marks = rows
    .map((row) => {
      const x = (row.start - start) / span;
      const band = (row.end - row.start) / span;
      const column = (band * 0.8) / 2;
      const x0 = x + band * 0.1;
      const bottom = TOP + PLOT_HEIGHT;
      return [
        rect(
          x0,
          yOf(axis, row.sent),
          column,
          bottom - yOf(axis, row.sent),
          'sent',
          tooltips ? `${row.period} · sent: ${formatCount(row.sent)}` : undefined,
        ),
        rect(
          x0 + column,
          yOf(axis, row.completed),
          column,
          bottom - yOf(axis, row.completed),
          'completed',
          tooltips ? `${row.period} · completed: ${formatCount(row.completed)}` : undefined,
        ),
      ].join('');
    })
    .join('');
  return chartBox(spec, axis, marks, xLabels(trend, start, end), legend(spec.series));
};

/**
 * Completion of the requests sent in each period, a step line; a gap where
 * it cannot be told yet (nothing sent, or nothing sent finished: see
 * `completionShare`), never a drop to 0 %.
 */
export const completionChart = (trend: TrendModel, id: string, asOf: string): string => {
  const rows = trend.rows;
  const start = rows[0]?.start ?? 0;
  const end = rows[rows.length - 1]?.end ?? start + 1;
  const span = end - start;
  const axis = shareAxis();
  const spec: ChartSpec = {
    id,
    title: `Completion of sent: the share of the requests sent in each ${trend.unit} that completed by ${asOf} (recent ones may still be open)`,
    series: [{ name: 'completed of sent', color: 'share' }],
    bars: [],
    xTitle: `${trend.unit} the requests were sent (UTC), ${spanText(trend)}`,
    yTitle: 'completed of sent',
  };
  const path: string[] = [];
  let drawing = false;
  for (const row of rows) {
    const share = completionShare(row);
    if (share === undefined) {
      drawing = false;
      continue;
    }
    const y = px(yOf(axis, share) - TOP);
    const x0 = px(((row.start - start) / span) * PLOT_WIDTH);
    const x1 = px(((row.end - start) / span) * PLOT_WIDTH);
    path.push(`${drawing ? 'L' : 'M'}${x0} ${y}H${x1}`);
    drawing = true;
  }
  const line = `<path class="line ${colourClass('share')}" vector-effect="non-scaling-stroke" d="${path.join('')}"><title>completion of sent, per ${trend.unit}</title></path>`;
  const marks = plot(TOP, PLOT_HEIGHT, line);
  return chartBox(spec, axis, marks, xLabels(trend, start, end), legend(spec.series, ['share']));
};
