/** A stacked column chart in SVG: one column per category (histogram bins, periods). */
import { chartBox, every, PLOT_HEIGHT, TOP, type XLabel, yOf } from './chart-box.js';
import { countAxis } from './chart-scales.js';
import { barTotal, type ChartSpec, emptyChart, legend, rect, tooltip } from './svg-chart.js';

/** At most this many x labels on a wide screen, and on a phone. */
const WIDE_LABELS = 10;
const NARROW_LABELS = 4;

/**
 * The chart in a `<figure>`, with its legend; a one-line note instead when
 * every column is empty (`empty` says what there is none of).
 */
export const columnChart = (spec: ChartSpec, empty = `no ${spec.yTitle}`): string => {
  const max = spec.bars.reduce((most, bar) => Math.max(most, barTotal(bar)), 0);
  if (max === 0) return emptyChart(spec, empty);
  const axis = countAxis(max);
  const band = 1 / Math.max(1, spec.bars.length);
  const gap = band * 0.15;
  const marks: string[] = [];
  const labels: XLabel[] = [];
  const wideStep = every(spec.bars.length, WIDE_LABELS);
  const narrowStep = every(spec.bars.length, NARROW_LABELS);
  spec.bars.forEach((bar, index) => {
    const x = index * band + gap / 2;
    let y = TOP + PLOT_HEIGHT;
    bar.values.forEach((value, s) => {
      const series = spec.series[s];
      if (series === undefined || value <= 0) return;
      const top = yOf(axis, value) - TOP - PLOT_HEIGHT;
      y += top;
      marks.push(rect(x, y, band - gap, -top, series.color, tooltip(bar, series, value)));
    });
    const wide = index % wideStep === 0;
    const narrow = index % narrowStep === 0;
    if (wide || narrow) labels.push({ at: x + (band - gap) / 2, label: bar.label, wide, narrow });
  });
  return chartBox(
    spec,
    axis,
    marks.join(''),
    labels,
    spec.series.length > 1 ? legend(spec.series) : '',
  );
};
