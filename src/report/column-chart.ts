/** A stacked column chart in SVG: one column per bar, for time periods and histogram bins. */

import { formatCount } from './html-text.js';
import {
  barTotal,
  type ChartSpec,
  figure,
  px,
  rect,
  shorten,
  svgFrame,
  text,
  tooltip,
} from './svg-chart.js';

const WIDTH = 880;
const HEIGHT = 240;
const LEFT = 56;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 40;
/** At most this many x labels, so they never overlap. */
const MAX_LABELS = 16;

/** The chart in a `<figure>`, with its legend. */
export const columnChart = (spec: ChartSpec): string => {
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const max = spec.bars.reduce((most, bar) => Math.max(most, barTotal(bar)), 1);
  const band = plotWidth / Math.max(1, spec.bars.length);
  const gap = band > 4 ? band * 0.15 : 0;
  const parts: string[] = [];
  for (const tick of [0, 0.5, 1]) {
    const y = TOP + plotHeight - tick * plotHeight;
    const value = Math.round(tick * max);
    parts.push(
      `<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${px(y)}" y2="${px(y)}"/>`,
    );
    parts.push(text(LEFT - 6, y + 4, formatCount(value), 'tick y'));
  }
  const every = Math.ceil(spec.bars.length / MAX_LABELS);
  spec.bars.forEach((bar, index) => {
    const x = LEFT + index * band + gap / 2;
    let y = TOP + plotHeight;
    bar.values.forEach((value, s) => {
      const series = spec.series[s];
      if (series === undefined || value <= 0) return;
      const height = (value / max) * plotHeight;
      y -= height;
      parts.push(rect(x, y, band - gap, height, series.color, tooltip(bar, series, value)));
    });
    if (index % every === 0) {
      parts.push(
        text(x + (band - gap) / 2, TOP + plotHeight + 16, shorten(bar.label, 12), 'tick x'),
      );
    }
  });
  return figure(spec, svgFrame(spec, WIDTH, HEIGHT, parts.join('')));
};
