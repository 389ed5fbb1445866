/** A stacked horizontal bar chart in SVG: one bar per row, for templates. */
import { formatCount } from './html-text.js';
import {
  barTotal,
  type ChartSpec,
  figure,
  rect,
  shorten,
  svgFrame,
  text,
  tooltip,
} from './svg-chart.js';

const WIDTH = 880;
const LABEL = 220;
const RIGHT = 64;
const ROW = 22;
const BAR = 15;
const TOP = 4;

/** The chart in a `<figure>`, with its legend; bars scaled to the largest total. */
export const barChart = (spec: ChartSpec): string => {
  const plotWidth = WIDTH - LABEL - RIGHT;
  const max = spec.bars.reduce((most, bar) => Math.max(most, barTotal(bar)), 1);
  const parts: string[] = [];
  spec.bars.forEach((bar, index) => {
    const y = TOP + index * ROW;
    parts.push(text(LABEL - 8, y + BAR - 3, shorten(bar.label, 32), 'tick y'));
    let x = LABEL;
    bar.values.forEach((value, s) => {
      const series = spec.series[s];
      if (series === undefined || value <= 0) return;
      const width = (value / max) * plotWidth;
      parts.push(rect(x, y, width, BAR, series.color, tooltip(bar, series, value)));
      x += width;
    });
    parts.push(text(x + 6, y + BAR - 3, formatCount(barTotal(bar)), 'tick'));
  });
  const height = TOP * 2 + Math.max(1, spec.bars.length) * ROW;
  return figure(spec, svgFrame(spec, WIDTH, height, parts.join('')));
};
