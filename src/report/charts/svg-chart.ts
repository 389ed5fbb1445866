/**
 * What the hand-written SVG charts share. A chart is an outer `<svg>` as
 * wide as its column and of a fixed height in CSS pixels, with no
 * `viewBox`: its text is never scaled, so it keeps its CSS size (12 px) on a
 * phone and on a wide screen alike, and x positions are percentages of the
 * width. Marks (bars, lines) sit in an inner `<svg>` whose `viewBox` is
 * stretched to the plot area (`preserveAspectRatio="none"`, strokes
 * unscaled), since they hold no text. Colours are classes fixed by meaning
 * (`chart-colours.ts`), restyled by the dark scheme and by print.
 */

import { escapeHtml, formatCount } from '../html-text.js';
import { colourClass, type Meaning } from './chart-colours.js';

/** One series of a chart: a name and what it means (which fixes its colour). */
export interface Series {
  readonly name: string;
  readonly color: Meaning;
}

/** One bar (or column): its label and one value per series. */
export interface Bar {
  readonly label: string;
  /** Shown after the label, isolated from it: `(company 2)`. */
  readonly suffix?: string;
  readonly values: readonly number[];
}

/** A chart: an id, a title, its series, its bars, and the titles of its axes. */
export interface ChartSpec {
  readonly id: string;
  readonly title: string;
  readonly series: readonly Series[];
  readonly bars: readonly Bar[];
  /** What the bars' labels are (`time from sent to final event`). */
  readonly xTitle: string;
  /** What the values count (`requests`). */
  readonly yTitle: string;
}

/** Width of the inner plot's `viewBox`: marks are laid out on 0…1000, then stretched. */
export const PLOT_WIDTH = 1000;

/** Rounds a coordinate to 0.1 of a unit. */
export const px = (value: number): string => String(Math.round(value * 10) / 10);

/** A percentage of the chart's width, rounded to 0.01. */
export const pct = (fraction: number): string => `${Math.round(fraction * 10000) / 100}%`;

/** The sum of a bar's values. */
export const barTotal = (bar: Bar): number => bar.values.reduce((sum, v) => sum + v, 0);

/**
 * One filled rectangle, `x` and `width` as fractions of the chart's width,
 * `y` and `height` in pixels, with a tooltip; nothing for an empty one.
 */
export const rect = (
  x: number,
  y: number,
  width: number,
  height: number,
  meaning: Meaning,
  tooltip: string | undefined,
): string => {
  if (width <= 0 || height <= 0) return '';
  const box = `x="${pct(x)}" y="${px(y)}" width="${pct(width)}" height="${px(height)}"`;
  return tooltip === undefined
    ? `<rect class="${colourClass(meaning)}" ${box}/>`
    : `<rect class="${colourClass(meaning)}" ${box}><title>${escapeHtml(tooltip)}</title></rect>`;
};

/** Text at `x` (a percentage of the width, or CSS pixels) and `y` (pixels); `classes` style it. */
export const text = (x: string | number, y: number, content: string, classes: string): string =>
  `<text class="${classes}" x="${typeof x === 'number' ? px(x) : x}" y="${px(y)}">${escapeHtml(content)}</text>`;

/** The tooltip of one segment: `2025-10-12 · participant-viewed: 1,117`. */
export const tooltip = (bar: Bar, series: Series, value: number): string =>
  `${bar.label}${bar.suffix === undefined ? '' : ` ${bar.suffix}`} · ${series.name}: ${formatCount(value)}`;

/** A horizontal grid line across the whole width at `y` pixels. */
export const gridLine = (y: number, className = 'grid'): string =>
  `<line class="${className}" x1="0" x2="100%" y1="${px(y)}" y2="${px(y)}"/>`;

/** The inner plot: `body` in units of {@link PLOT_WIDTH} × `height`, stretched over the width. */
export const plot = (top: number, height: number, body: string): string =>
  `<svg class="plot" x="0" y="${px(top)}" width="100%" height="${px(height)}" viewBox="0 0 ${PLOT_WIDTH} ${px(height)}" preserveAspectRatio="none">${body}</svg>`;

/** The outer `<svg>` around `body`, titled for assistive technology. */
export const svgFrame = (spec: ChartSpec, height: number, body: string): string =>
  `<svg class="chart" id="${spec.id}" height="${px(height)}" role="img" aria-labelledby="${spec.id}-title"><title id="${spec.id}-title">${escapeHtml(spec.title)}</title>${body}</svg>`;

/** The legend of a chart's series (a short line for a series drawn as a line). */
export const legend = (series: readonly Series[], lines: readonly Meaning[] = []): string =>
  `<ul class="legend">${series
    .map(
      (s) =>
        `<li><span class="sw ${colourClass(s.color)}${lines.includes(s.color) ? ' line-sw' : ''}"></span>${escapeHtml(s.name)}</li>`,
    )
    .join('')}</ul>`;

/** A chart's caption: its title, and where its figures are as text. */
export const caption = (spec: ChartSpec): string =>
  `<figcaption>${escapeHtml(spec.title)} (the table below has the same figures)</figcaption>`;

/**
 * What stands in for a chart with nothing to draw (no conflicts, say): one
 * line, not a full-size empty plot.
 */
export const emptyChart = (spec: ChartSpec, why: string): string =>
  `<p class="note empty-chart" id="${spec.id}">${escapeHtml(spec.title)}: ${escapeHtml(why)}</p>`;
