/**
 * Events received over time (by type, and conflicts), from the `receivedAt`
 * of each decoded event in the audit trail. Bad lines and invalid events are
 * left out (the overview and the quarantine count them). The period adapts to
 * the span of the log so the chart stays readable: hours for up to 3 days,
 * days for up to 2 years, months for up to 20 years, years beyond.
 */
import type { AuditEntry, AuditTrailData } from '../engine/audit-trail.js';
import { EVENT_TYPES, type EventType } from '../events/event-members.js';
import type { ActivityModel, ActivityRow } from './report-model.js';
import { receivedTime } from './request-times.js';

const HOUR_MS = 3_600_000;
const MAX_HOURS = 72;
const MAX_DAYS_IN_HOURS = 731 * 24;
const MAX_MONTHS_IN_HOURS = 7305 * 24;
const TYPE_INDEX = new Map<EventType, number>(EVENT_TYPES.map((type, index) => [type, index]));
/** Slot of the conflict counter, after one slot per event type. */
const CONFLICTS = EVENT_TYPES.length;

/** Activity and the latest `receivedAt` of a log. */
export interface ActivityScan {
  readonly activity: ActivityModel | undefined;
  /** The latest `receivedAt` (epoch ms), `undefined` when no event has one. */
  readonly latest: number | undefined;
}

const isConflict = (entry: AuditEntry): boolean =>
  entry.outcome !== 'applied' && entry.outcome !== 'no-op';

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

/** Scans every audit entry once. */
export const scanActivity = (audit: AuditTrailData): ActivityScan => {
  const perHour = new Map<number, Int32Array>();
  let latest: number | undefined;
  const seenTypes = new Set<number>();
  const count = (entries: readonly AuditEntry[]): void => {
    for (const entry of entries) {
      const ms = receivedTime(entry.receivedAt);
      if (ms === undefined) continue;
      if (latest === undefined || ms > latest) latest = ms;
      const hour = Math.floor(ms / HOUR_MS);
      let counts = perHour.get(hour);
      if (counts === undefined) {
        counts = new Int32Array(CONFLICTS + 1);
        perHour.set(hour, counts);
      }
      const type = TYPE_INDEX.get(entry.type) ?? 0;
      seenTypes.add(type);
      counts[type] = (counts[type] ?? 0) + 1;
      if (isConflict(entry)) counts[CONFLICTS] = (counts[CONFLICTS] ?? 0) + 1;
    }
  };
  for (const [, entries] of audit.templates) count(entries);
  for (const [, entries] of audit.signRequests) count(entries);
  if (perHour.size === 0) return { activity: undefined, latest };
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const hour of perHour.keys()) {
    if (hour < first) first = hour;
    if (hour > last) last = hour;
  }
  const types = [...seenTypes].sort((a, b) => a - b);
  const { unit, rows } = toRows(perHour, first, last, types);
  return {
    activity: {
      unit,
      types: types.map((index) => EVENT_TYPES[index] ?? 'template-activated'),
      rows,
    },
    latest,
  };
};
