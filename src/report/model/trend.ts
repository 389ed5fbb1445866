/**
 * The trend an operations lead reads: per period, how many requests were
 * sent and how many completed (volume), and of those sent in the period how
 * many have completed since (completion of sent). From each request's sent
 * and final times (`RequestTimes`), by `receivedAt`, UTC. The period adapts
 * to the span so a chart has at most about a hundred: hours up to 4 days,
 * days up to 92, weeks (from Monday) up to 2 years, months up to 30 years,
 * years beyond (only the years that have requests: a hostile `receivedAt`
 * in year 1 must not make the page list two thousand empty years). It runs
 * up to the end of the report's period ("now", or `--to`), not past it: the
 * last period is cut there, and the quiet periods since the last request
 * are part of the trend.
 */
import { type CountableTimeInterval, utcDay, utcHour, utcMonday, utcMonth, utcYear } from 'd3-time';
import { utcFormat } from 'd3-time-format';
import type { RequestTimes } from './request-times.js';

/** How long a trend period is. */
export type TrendUnit = 'hour' | 'day' | 'week' | 'month' | 'year';

/** One period of the trend. */
export interface TrendRow {
  /** `2025-10-12 09:00`, `2025-10-12`, `2025-10-06` (the Monday), `2025-10`, `2025`. */
  readonly period: string;
  /** Start and end (exclusive), epoch ms; the last period's end is the trend's end, if earlier. */
  readonly start: number;
  readonly end: number;
  /** Requests sent in the period. */
  readonly sent: number;
  /** Requests completed in the period (whenever they were sent). */
  readonly completed: number;
  /** Of the requests sent in the period, those completed by the end of the log. */
  readonly completedOfSent: number;
  /**
   * Of the requests sent in the period, those completed or declined by the
   * end of the log: a share of sent is only told once one of them finished
   * (0 of 5 still open is "not yet", not 0 %).
   */
  readonly finishedOfSent: number;
}

/**
 * The completion of sent of a period, or `undefined` when it cannot be told
 * yet: nothing sent in it, or nothing sent in it finished (all still open).
 * The chart leaves a gap there and the table shows `–`, rather than a 0 %
 * that only means "too early".
 */
export const completionShare = (row: TrendRow): number | undefined =>
  row.sent === 0 || row.finishedOfSent === 0 ? undefined : row.completedOfSent / row.sent;

/** The trend of a log; `undefined` when no request has a sent time. */
export interface TrendModel {
  readonly unit: TrendUnit;
  readonly rows: readonly TrendRow[];
}

const DAY_MS = 86_400_000;
const UNITS: readonly (readonly [TrendUnit, number, CountableTimeInterval, string])[] = [
  ['hour', 4 * DAY_MS, utcHour, '%Y-%m-%d %H:00'],
  ['day', 92 * DAY_MS, utcDay, '%Y-%m-%d'],
  ['week', 731 * DAY_MS, utcMonday, '%Y-%m-%d'],
  ['month', 30 * 366 * DAY_MS, utcMonth, '%Y-%m'],
  ['year', Number.POSITIVE_INFINITY, utcYear, '%Y'],
];

interface Counts {
  sent: number;
  completed: number;
  completedOfSent: number;
  finishedOfSent: number;
}

const none = (): Counts => ({ sent: 0, completed: 0, completedOfSent: 0, finishedOfSent: 0 });

/**
 * The trend of `requests` (their sent and final times), up to `endMs` (the
 * end of the report's period; by default the last time among them).
 */
export const buildTrend = (
  requests: Iterable<RequestTimes>,
  endMs?: number,
): TrendModel | undefined => {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  const timed: RequestTimes[] = [];
  for (const times of requests) {
    if (times.sentAt === undefined) continue;
    timed.push(times);
    first = Math.min(first, times.sentAt, times.finishedAt ?? times.sentAt);
    last = Math.max(last, times.sentAt, times.finishedAt ?? times.sentAt);
  }
  if (timed.length === 0) return undefined;
  // The end is where the period stops; the trend never stops before its last request.
  const end = endMs === undefined ? undefined : Math.max(last + 1, endMs);
  if (end !== undefined) last = end - 1;
  const [unit, , interval, pattern] =
    UNITS.find(([, span]) => last - first <= span) ??
    (UNITS[UNITS.length - 1] as (typeof UNITS)[number]);
  const periodOf = (ms: number): number => interval.floor(new Date(ms)).getTime();
  const counts = new Map<number, Counts>();
  const at = (ms: number): Counts => {
    const start = periodOf(ms);
    let entry = counts.get(start);
    if (entry === undefined) {
      entry = none();
      counts.set(start, entry);
    }
    return entry;
  };
  for (const times of timed) {
    const sent = at(times.sentAt as number);
    sent.sent += 1;
    if (times.outcome !== undefined) sent.finishedOfSent += 1;
    if (times.outcome === 'completed') {
      sent.completedOfSent += 1;
      if (times.finishedAt !== undefined) at(times.finishedAt).completed += 1;
    }
  }
  // Every period from the first to the last (empty ones are part of a trend), except years.
  const starts =
    unit === 'year'
      ? [...counts.keys()].sort((a, b) => a - b)
      : interval.range(new Date(periodOf(first)), new Date(last + 1)).map((d) => d.getTime());
  const format = utcFormat(pattern);
  const rows = starts.map((start) => {
    const c = counts.get(start) ?? none();
    // The period in progress at the end is drawn up to the end only (not a day past "now").
    const next = interval.offset(new Date(start), 1).getTime();
    const periodEnd = end === undefined ? next : Math.max(Math.min(next, end), start + 1);
    return { period: format(new Date(start)), start, end: periodEnd, ...c };
  });
  return { unit, rows };
};
