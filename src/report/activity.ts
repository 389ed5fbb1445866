/**
 * Events received per day (by type, and conflicts), from the `receivedAt` of
 * each decoded event in the audit trail. Bad lines and invalid events carry
 * no trustworthy time and are left out (the overview and quarantine count them).
 */
import type { AuditEntry, AuditTrailData } from '../engine/audit-trail.js';
import { EVENT_TYPES, type EventType } from '../events/event-members.js';
import type { ActivityModel, ActivityRow } from './report-model.js';
import { receivedTime } from './request-times.js';

const DAY_MS = 86_400_000;
/** Longer logs are shown per month, so the table and chart stay readable. */
const MAX_DAYS = 731;
/** Spans up to 20 years are shown per month; beyond, per year. */
const MAX_MONTH_SPAN_DAYS = 7305;
const TYPE_INDEX = new Map<EventType, number>(EVENT_TYPES.map((type, index) => [type, index]));
const CONFLICTS = EVENT_TYPES.length;

/** Activity and the latest `receivedAt` of a log. */
export interface ActivityScan {
  readonly activity: ActivityModel | undefined;
  /** The latest `receivedAt` (epoch ms), `undefined` when no event has one. */
  readonly latest: number | undefined;
}

const isConflict = (entry: AuditEntry): boolean =>
  entry.outcome !== 'applied' && entry.outcome !== 'no-op';

const dayName = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The period a day falls in: itself, its month, or (for absurd spans) its year. */
const periodOf = (day: number, unit: ActivityModel['unit']): string => {
  const name = dayName(day);
  return unit === 'day' ? name : unit === 'month' ? name.slice(0, 7) : name.slice(0, 4);
};

/**
 * Sums per-day counters into rows, per day or (for long logs) per month or
 * year. Empty days and months in between are included; empty years are not, so
 * a hostile `receivedAt` far in the past cannot blow the page up.
 */
const toRows = (
  perDay: ReadonlyMap<number, Int32Array>,
  first: number,
  last: number,
  types: readonly number[],
): { unit: ActivityModel['unit']; rows: ActivityRow[] } => {
  const span = last - first + 1;
  const unit = span <= MAX_DAYS ? 'day' : span <= MAX_MONTH_SPAN_DAYS ? 'month' : 'year';
  const periods = new Map<string, Int32Array>();
  const add = (name: string, counts: Int32Array | undefined): void => {
    let sum = periods.get(name);
    if (sum === undefined) {
      sum = new Int32Array(CONFLICTS + 1);
      periods.set(name, sum);
    }
    if (counts !== undefined) for (let i = 0; i <= CONFLICTS; i += 1) sum[i]! += counts[i]!;
  };
  if (unit === 'year') {
    const days = [...perDay.keys()].sort((a, b) => a - b);
    for (const day of days) add(periodOf(day, unit), perDay.get(day));
  } else {
    for (let day = first; day <= last; day += 1) add(periodOf(day, unit), perDay.get(day));
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
  const perDay = new Map<number, Int32Array>();
  let latest: number | undefined;
  const seenTypes = new Set<number>();
  const count = (entries: readonly AuditEntry[]): void => {
    for (const entry of entries) {
      const ms = receivedTime(entry.receivedAt);
      if (ms === undefined) continue;
      if (latest === undefined || ms > latest) latest = ms;
      const day = Math.floor(ms / DAY_MS);
      let counts = perDay.get(day);
      if (counts === undefined) {
        counts = new Int32Array(CONFLICTS + 1);
        perDay.set(day, counts);
      }
      const type = TYPE_INDEX.get(entry.type) ?? 0;
      seenTypes.add(type);
      counts[type]! += 1;
      if (isConflict(entry)) counts[CONFLICTS]! += 1;
    }
  };
  for (const [, entries] of audit.templates) count(entries);
  for (const [, entries] of audit.signRequests) count(entries);
  if (perDay.size === 0) return { activity: undefined, latest };
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const day of perDay.keys()) {
    if (day < first) first = day;
    if (day > last) last = day;
  }
  const types = [...seenTypes].sort((a, b) => a - b);
  const { unit, rows } = toRows(perDay, first, last, types);
  return {
    activity: {
      unit,
      types: types.map((index) => EVENT_TYPES[index] ?? 'template-activated'),
      rows,
    },
    latest,
  };
};
