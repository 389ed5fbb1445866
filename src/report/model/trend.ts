/**
 * The trend an operations lead reads: per period, how many requests were
 * sent and how many completed (volume), and of those sent in the period how
 * many have completed since (completion of sent). From each request's sent
 * and final times (`RequestTimes`), by `receivedAt`, UTC. The period adapts
 * to the span so a chart has at most about a hundred: hours up to 4 days,
 * days up to 92, weeks (from Monday) up to 2 years, months up to 30 years,
 * years beyond (only the years that have requests: a hostile `receivedAt`
 * in year 1 must not make the page list two thousand empty years).
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
  /** Start and end (exclusive), epoch ms. */
  readonly start: number;
  readonly end: number;
  /** Requests sent in the period. */
  readonly sent: number;
  /** Requests completed in the period (whenever they were sent). */
  readonly completed: number;
  /** Of the requests sent in the period, those completed by the end of the log. */
  readonly completedOfSent: number;
}

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
}

/** The trend of `requests` (their sent and final times). */
export const buildTrend = (requests: Iterable<RequestTimes>): TrendModel | undefined => {
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
  const [unit, , interval, pattern] =
    UNITS.find(([, span]) => last - first <= span) ??
    (UNITS[UNITS.length - 1] as (typeof UNITS)[number]);
  const periodOf = (ms: number): number => interval.floor(new Date(ms)).getTime();
  const counts = new Map<number, Counts>();
  const at = (ms: number): Counts => {
    const start = periodOf(ms);
    let entry = counts.get(start);
    if (entry === undefined) {
      entry = { sent: 0, completed: 0, completedOfSent: 0 };
      counts.set(start, entry);
    }
    return entry;
  };
  for (const times of timed) {
    const sent = at(times.sentAt as number);
    sent.sent += 1;
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
    const c = counts.get(start) ?? { sent: 0, completed: 0, completedOfSent: 0 };
    const end = interval.offset(new Date(start), 1).getTime();
    return { period: format(new Date(start)), start, end, ...c };
  });
  return { unit, rows };
};
