/**
 * Events received over time (by type, and conflicts), from the per-hour
 * counts of the `ReportRecorder`. Bad lines and invalid events are
 * left out (the overview and the quarantine count them). The period adapts to
 * the span of the log so the chart stays readable: hours for up to 3 days,
 * days for up to 2 years, months for up to 20 years, years beyond.
 */
import { EVENT_TYPES } from '../../core/events/event-members.js';
import type { ActivityModel, ActivityRow } from './report-model.js';
import { CONFLICT_SLOT as CONFLICTS } from './report-recorder.js';

const HOUR_MS = 3_600_000;
const MAX_HOURS = 72;
const MAX_DAYS_IN_HOURS = 731 * 24;
const MAX_MONTHS_IN_HOURS = 7305 * 24;

/** The period an hour falls in: `2025-10-12 09h`, `2025-10-12`, `2025-10` or `2025` (UTC). */
const periodOf = (hour: number, unit: ActivityModel['unit']): string => {
  const iso = new Date(hour * HOUR_MS).toISOString();
  if (unit === 'hour') return `${iso.slice(0, 10)} ${iso.slice(11, 13)}h`;
  return iso.slice(0, unit === 'day' ? 10 : unit === 'month' ? 7 : 4);
};

const unitFor = (spanHours: number): ActivityModel['unit'] =>
  spanHours <= MAX_HOURS
    ? 'hour'
    : spanHours <= MAX_DAYS_IN_HOURS
      ? 'day'
      : spanHours <= MAX_MONTHS_IN_HOURS
        ? 'month'
        : 'year';

/**
 * Sums per-hour counters into rows of the chosen period. Empty periods in
 * between are included, except years: a hostile `receivedAt` far in the past
 * must not blow the page up.
 */
const toRows = (
  perHour: ReadonlyMap<number, Int32Array>,
  first: number,
  last: number,
  types: readonly number[],
): { unit: ActivityModel['unit']; rows: ActivityRow[] } => {
  const unit = unitFor(last - first + 1);
  const periods = new Map<string, Int32Array>();
  const add = (name: string, counts: Int32Array | undefined): void => {
    let sum = periods.get(name);
    if (sum === undefined) {
      sum = new Int32Array(CONFLICTS + 1);
      periods.set(name, sum);
    }
    if (counts === undefined) return;
    for (let i = 0; i <= CONFLICTS; i += 1) sum[i] = (sum[i] ?? 0) + (counts[i] ?? 0);
  };
  if (unit === 'year') {
    const hours = [...perHour.keys()].sort((a, b) => a - b);
    for (const hour of hours) add(periodOf(hour, unit), perHour.get(hour));
  } else {
    // Step a day at a time for days and months: each period's name is computed once a day.
    const step = unit === 'hour' ? 1 : 24;
    const start = first - (((first % step) + step) % step);
    for (let hour = start; hour <= last; hour += step) {
      const name = periodOf(hour, unit);
      add(name, undefined);
      for (let h = hour; h < hour + step; h += 1) add(name, perHour.get(h));
    }
  }
  const rows = [...periods].map(([period, counts]) => {
    const byType = types.map((index) => counts[index] ?? 0);
    return {
      period,
      byType,
      total: byType.reduce((a, b) => a + b, 0),
      conflicts: counts[CONFLICTS] ?? 0,
    };
  });
  return { unit, rows };
};

/** The activity of a log from its per-hour counts; `undefined` when no event had a time. */
export const buildActivity = (
  perHour: ReadonlyMap<number, Int32Array>,
): ActivityModel | undefined => {
  if (perHour.size === 0) return undefined;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  const seen = new Set<number>();
  for (const [hour, counts] of perHour) {
    if (hour < first) first = hour;
    if (hour > last) last = hour;
    for (let slot = 0; slot < CONFLICTS; slot += 1) if ((counts[slot] ?? 0) > 0) seen.add(slot);
  }
  const types = [...seen].sort((a, b) => a - b);
  const { unit, rows } = toRows(perHour, first, last, types);
  return { unit, types: types.map((index) => EVENT_TYPES[index] ?? 'template-activated'), rows };
};
