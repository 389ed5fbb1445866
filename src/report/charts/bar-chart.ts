/**
 * A stacked horizontal bar chart in SVG, one bar per row (templates, people):
 * each row's label on a line of its own above its bar, so a label has the
 * whole width and the bars line up; the total at the end of each bar.
 */
import { escapeHtml, formatCount } from '../html-text.js';
import {
  barTotal,
  type ChartSpec,
  caption,
  emptyChart,
  legend,
  pct,
  px,
  rect,
  svgFrame,
  tooltip,
} from './svg-chart.js';

const ROW = 38;
const LABEL_Y = 14;
const BAR_Y = 19;
const BAR = 14;
/** The longest bar, as a share of the width: the rest holds its total. */
const LONGEST = 0.8;
/**
 * Room for a label, in ems of the chart's 12 px text: a phone's column (358
 * px at 390) and the narrowest wide one (609 px), with a margin.
 */
const WIDE_LABEL = 46;
const NARROW_LABEL = 26;

/**
 * A character's width in ems, on the generous side so a label is never
 * clipped: wide ones (East Asian, emoji) 1.25, `W` and `M` 1, other capitals
 * and digits 0.75, narrow ones 0.35, the rest 0.6.
 */
const widthOf = (char: string): number => {
  const code = char.codePointAt(0) ?? 0;
  if (code >= 0x1100) return 1.25;
  if (char === 'W' || char === 'M' || char === 'w' || char === 'm') return 1;
  if (/[A-Z0-9]/.test(char)) return 0.75;
  if (/[ iljtfr.,:;'!|()[\]-]/.test(char)) return 0.35;
  return 0.6;
};

/** Its width in ems (see {@link widthOf}). */
const emsOf = (text: string): number => [...text].reduce((sum, char) => sum + widthOf(char), 0);

/** `label` cut to `max` ems, with an ellipsis. */
const fitLabel = (label: string, max: number): string => {
  let used = 0;
  let out = '';
  for (const char of label) {
    used += widthOf(char);
    if (used > max - 1) return `${out}…`;
    out += char;
  }
  return label;
};

/** A bar's label: the name (isolated from its suffix, so a right-to-left name keeps to itself). */
const labelText = (name: string, suffix: string | undefined, y: number, classes: string): string =>
  `<text class="bar-label ${classes}" x="0" y="${px(y)}"><tspan class="iso">${escapeHtml(name)}</tspan>${suffix === undefined ? '' : ` <tspan class="iso">${escapeHtml(suffix)}</tspan>`}</text>`;

/** The chart in a `<figure>`, with its legend; bars scaled to the largest total. */
export const barChart = (spec: ChartSpec, empty = `no ${spec.yTitle}`): string => {
  const max = spec.bars.reduce((most, bar) => Math.max(most, barTotal(bar)), 0);
  if (max === 0) return emptyChart(spec, empty);
  const parts: string[] = [];
  spec.bars.forEach((bar, index) => {
    const y = index * ROW;
    const suffixWidth = bar.suffix === undefined ? 0 : emsOf(bar.suffix) + 0.5;
    const wide = fitLabel(bar.label, WIDE_LABEL - suffixWidth);
    const narrow = fitLabel(bar.label, NARROW_LABEL - suffixWidth);
    const full = `${bar.label}${bar.suffix === undefined ? '' : ` ${bar.suffix}`}`;
    parts.push(`<g><title>${escapeHtml(full)}</title>`);
    if (wide === narrow) parts.push(labelText(wide, bar.suffix, y + LABEL_Y, ''));
    else {
      parts.push(labelText(wide, bar.suffix, y + LABEL_Y, 'wide-only'));
      parts.push(labelText(narrow, bar.suffix, y + LABEL_Y, 'narrow-only'));
    }
    parts.push('</g>');
    let x = 0;
    bar.values.forEach((value, s) => {
      const series = spec.series[s];
      if (series === undefined || value <= 0) return;
      const width = (value / max) * LONGEST;
      parts.push(rect(x, y + BAR_Y, width, BAR, series.color, tooltip(bar, series, value)));
      x += width;
    });
    parts.push(
      `<g transform="translate(6 0)"><text class="value" x="${pct(x)}" y="${px(y + BAR_Y + BAR - 2)}">${formatCount(barTotal(bar))}</text></g>`,
    );
  });
  const height = Math.max(1, spec.bars.length) * ROW;
  const swatches = spec.series.length > 1 ? legend(spec.series) : '';
  return `<figure class="chart-figure"><div class="axis-title">${escapeHtml(spec.xTitle)}</div>${svgFrame(spec, height, parts.join(''))}<div class="axis-title x">${escapeHtml(spec.yTitle)} (bar length; the total at its end)</div>${swatches}${caption(spec)}</figure>`;
};
