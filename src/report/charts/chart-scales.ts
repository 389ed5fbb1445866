/**
 * Axes of the charts, from d3's scales (the reference for "nice" ticks):
 * value axes with round ticks (0, 2,000, 4,000, never 37,483), time axes with
 * ticks on round UTC boundaries labelled by `utcFormat` (the page never
 * depends on the machine's time zone nor its locale). d3 needs no DOM; only
 * the report loads it.
 */
import { scaleLinear, scaleUtc } from 'd3-scale';
import { type CountableTimeInterval, utcDay, utcMonth, utcYear } from 'd3-time';
import { utcFormat } from 'd3-time-format';
import { formatCount } from '../html-text.js';

/** A value axis: its top (a nice number at or above the largest value) and its ticks. */
export interface ValueAxis {
  readonly top: number;
  readonly ticks: readonly { readonly value: number; readonly label: string }[];
}

/**
 * About `count` round ticks from 0 to at least `max`, whole numbers only
 * (counts of requests have no halves): `max` 74,966 → 0, 20,000 … 80,000.
 */
export const countAxis = (max: number, count = 4): ValueAxis => {
  const scale = scaleLinear()
    .domain([0, Math.max(1, max)])
    .nice(count);
  const top = scale.domain()[1] ?? 1;
  const ticks = scale
    .ticks(count)
    .filter((value) => Number.isInteger(value))
    .map((value) => ({ value, label: formatCount(value) }));
  return { top, ticks };
};

/** A share axis, 0 % to 100 % in quarters. */
export const shareAxis = (): ValueAxis => ({
  top: 1,
  ticks: [0, 0.25, 0.5, 0.75, 1].map((value) => ({ value, label: `${value * 100} %` })),
});

const YEAR = utcFormat('%Y');
const MONTH = utcFormat('%b');
const DAY = utcFormat('%b %-d');
const HOUR = utcFormat('%H:%M');

/**
 * A tick's label says what changed at it and no more: `2025` at a new year,
 * `Mar` at a new month, `Mar 3` at a new day, `06:00` within a day (UTC).
 */
export const timeTickLabel = (date: Date): string => {
  if (utcDay(date) < date) return HOUR(date);
  if (utcMonth(date) < date) return DAY(date);
  if (utcYear(date) < date) return MONTH(date);
  return YEAR(date);
};

/** One time tick: where it falls on the axis (0–1) and its label. */
export interface TimeTick {
  readonly at: number;
  readonly label: string;
}

/**
 * About `count` ticks on round UTC boundaries between `start` and `end`
 * (epoch ms), as fractions of the span, none finer than `finest` (a chart of
 * days has no tick at 06:00): when d3's ticks are finer, one per `finest`
 * unit, thinned to about `count`.
 */
export const timeTicks = (
  start: number,
  end: number,
  count: number,
  finest: CountableTimeInterval,
): TimeTick[] => {
  const scale = scaleUtc()
    .domain([new Date(start), new Date(Math.max(end, start + 1))])
    .range([0, 1]);
  let dates = scale.ticks(count).filter((date) => finest.floor(date).getTime() === date.getTime());
  if (dates.length < 2) {
    const all = finest.range(new Date(start), new Date(end + 1));
    const step = Math.max(1, Math.ceil(all.length / count));
    dates = all.filter((_, index) => index % step === 0);
  }
  return dates.map((date) => ({ at: scale(date), label: timeTickLabel(date) }));
};
