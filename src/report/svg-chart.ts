/**
 * What the hand-written SVG charts share: series (name and colour slot), the
 * legend, coordinates rounded so the bytes stay small and stable, and the
 * `<svg>` frame. Colours are CSS classes (`c0`…`c11`), so light and dark
 * schemes and print restyle the charts without touching them.
 */
import { escapeHtml, formatCount } from './html-text.js';

/** One stacked series of a chart: a name and a colour slot (0–11). */
export interface Series {
  readonly name: string;
  readonly color: number;
}

/** One bar (or column): its label and one value per series. */
export interface Bar {
  readonly label: string;
  readonly values: readonly number[];
}

/** A chart: an id, a title, its series, its bars. */
export interface ChartSpec {
  readonly id: string;
  readonly title: string;
  readonly series: readonly Series[];
  readonly bars: readonly Bar[];
}

/** Rounds a coordinate to 0.1 of a unit. */
export const px = (value: number): string => String(Math.round(value * 10) / 10);

/** The sum of a bar's values. */
export const barTotal = (bar: Bar): number => bar.values.reduce((sum, v) => sum + v, 0);

/** A label cut to `max` characters, with an ellipsis. */
export const shorten = (label: string, max: number): string =>
  label.length <= max ? label : `${label.slice(0, max - 1)}…`;

/** One filled rectangle with a tooltip; nothing for an empty one. */
export const rect = (
  x: number,
  y: number,
  width: number,
  height: number,
  color: number,
  tooltip: string,
): string =>
  width <= 0 || height <= 0
    ? ''
    : `<rect class="c${color}" x="${px(x)}" y="${px(y)}" width="${px(width)}" height="${px(height)}"><title>${escapeHtml(tooltip)}</title></rect>`;

/** Text at a point. */
export const text = (x: number, y: number, content: string, className: string): string =>
  `<text class="${className}" x="${px(x)}" y="${px(y)}">${escapeHtml(content)}</text>`;

/** The tooltip of one segment: `2025-10-12 · participant-viewed: 1,117`. */
export const tooltip = (bar: Bar, series: Series, value: number): string =>
  `${bar.label} · ${series.name}: ${formatCount(value)}`;

/** The `<svg>` frame around `body`, titled for assistive technology. */
export const svgFrame = (spec: ChartSpec, width: number, height: number, body: string): string =>
  `<svg class="chart" id="${spec.id}" viewBox="0 0 ${width} ${px(height)}" role="img" aria-labelledby="${spec.id}-title"><title id="${spec.id}-title">${escapeHtml(spec.title)}</title>${body}</svg>`;

/** The legend of a chart's series. */
export const legend = (series: readonly Series[]): string =>
  `<ul class="legend">${series
    .map((s) => `<li><span class="sw c${s.color}"></span>${escapeHtml(s.name)}</li>`)
    .join('')}</ul>`;

/** A figure: the chart, its legend (when it has several series), and a caption. */
export const figure = (spec: ChartSpec, svg: string): string =>
  `<figure class="chart-figure">${svg}${spec.series.length > 1 ? legend(spec.series) : ''}<figcaption>${escapeHtml(spec.title)} (the table below has the same figures)</figcaption></figure>`;
