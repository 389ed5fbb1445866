/**
 * A stacked horizontal bar chart in SVG, one bar per row (templates, people):
 * each row's label on a line of its own above its bar, so a label has the
 * whole width and the bars line up; the total at the end of each bar.
 */
import { escapeHtml, formatCount } from './html-text.js';
import {
  barTotal,
  type ChartSpec,
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
/** Label widths in "narrow characters" (a wide one, CJK or emoji, counts 2), wide screen and phone. */
const WIDE_LABEL = 90;
const NARROW_LABEL = 40;

/** A code point's width in narrow characters: 2 for East Asian wide ones and emoji, roughly. */
const widthOf = (char: string): number => ((char.codePointAt(0) ?? 0) >= 0x1100 ? 2 : 1);

/** `label` cut to `max` narrow characters, with an ellipsis. */
export const fitLabel = (label: string, max: number): string => {
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
    const suffixWidth = bar.suffix === undefined ? 0 : [...bar.suffix].length + 1;
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
  return `<figure class="chart-figure"><div class="axis-title">${escapeHtml(spec.xTitle)}</div>${svgFrame(spec, height, parts.join(''))}<div class="axis-title x">${escapeHtml(spec.yTitle)} (bar length; the total at its end)</div>${swatches}<figcaption>${escapeHtml(spec.title)} (the table below has the same figures)</figcaption></figure>`;
};
