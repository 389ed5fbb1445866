/**
 * The frame of the charts with a value axis (columns and trends): the axis
 * title above, the tick labels in a narrow `<svg>` of their own at the left
 * (fixed width, so they are never squeezed), the plot beside it taking the
 * rest of the width, the x labels under the plot and the x axis title
 * under them. Titles are HTML, so they wrap instead of running off a phone.
 */

import { escapeHtml } from '../html-text.js';
import type { ValueAxis } from './chart-scales.js';
import { type ChartSpec, caption, gridLine, pct, px, svgFrame, text } from './svg-chart.js';

/** Pixels above the plot (room for the top tick label), its height, and the x labels' row. */
export const TOP = 8;
export const PLOT_HEIGHT = 170;
const LABEL_ROW = 22;
const AXIS_WIDTH = 60;

/** An x label: its place as a fraction of the width (centre), and where it shows. */
export interface XLabel {
  readonly at: number;
  readonly label: string;
  /** Shown on wide screens. */
  readonly wide: boolean;
  /** Shown on phones (fewer labels, so they never run together). */
  readonly narrow: boolean;
}

/** The y pixel of `value` on the axis. */
export const yOf = (axis: ValueAxis, value: number): number =>
  TOP + PLOT_HEIGHT - (value / axis.top) * PLOT_HEIGHT;

/** The narrowest plot a label shows on: a phone's (390 px less margins and axis), else 768 px's. */
const NARROWEST_PHONE_PLOT = 290;
const NARROWEST_WIDE_PLOT = 680;
/** A generous width of one character of the 12 px labels. */
const CHAR_PX = 7.5;

/**
 * One x label, centred under its place unless it would then stick out of
 * the plot at the narrowest width it shows at: then anchored at its start
 * (near the left edge) or end (near the right). Text is never clipped, and
 * the chart is never wider than its column.
 */
const xLabel = (label: XLabel): string => {
  const classes = ['tick'];
  const plot = label.narrow ? NARROWEST_PHONE_PLOT : NARROWEST_WIDE_PLOT;
  const half = ([...label.label].length * CHAR_PX) / 2;
  const anchor = label.at * plot < half ? 'start' : (1 - label.at) * plot < half ? 'end' : 'mid';
  classes.push(anchor);
  if (!label.wide) classes.push('narrow-only');
  else if (!label.narrow) classes.push('wide-only');
  return text(pct(label.at), TOP + PLOT_HEIGHT + 16, label.label, classes.join(' '));
};

/** Every `step`-th of `count` labels, for `wanted` at most. */
export const every = (count: number, wanted: number): number =>
  Math.max(1, Math.ceil(count / wanted));

/** The chart's figure: axes, grid, `marks` (already drawn) and labels. */
export const chartBox = (
  spec: ChartSpec,
  axis: ValueAxis,
  marks: string,
  labels: readonly XLabel[],
  legendHtml: string,
): string => {
  const height = TOP + PLOT_HEIGHT + LABEL_ROW;
  const grid = axis.ticks.map((tick) => gridLine(yOf(axis, tick.value))).join('');
  const tickLabels = axis.ticks
    .map((tick) => text(AXIS_WIDTH - 6, yOf(axis, tick.value) + 4, tick.label, 'tick end'))
    .join('');
  const yAxis = `<svg class="y-axis" width="${AXIS_WIDTH}" height="${px(height)}" aria-hidden="true">${tickLabels}</svg>`;
  const base = gridLine(TOP + PLOT_HEIGHT, 'axis');
  const chart = svgFrame(spec, height, `${grid}${marks}${base}${labels.map(xLabel).join('')}`);
  return `<figure class="chart-figure"><div class="axis-title">${escapeHtml(spec.yTitle)}</div><div class="chart-box">${yAxis}${chart}</div><div class="axis-title x">${escapeHtml(spec.xTitle)}</div>${legendHtml}${caption(spec)}</figure>`;
};
