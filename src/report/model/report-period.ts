/**
 * The period a report covers (`--from`, `--to`): `receivedAt` in
 * `[fromMs, toMs)`. Events before `fromMs` are folded (a request's status
 * needs its whole history) but are not activity of the period; events at or
 * after `toMs` are not read at all, so statuses are those at the end of the
 * period. A request belongs to the period when its sent time does.
 */

/** Bounds in epoch ms; either may be missing (no bound on that side). */
export interface ReportPeriod {
  readonly fromMs?: number | undefined;
  readonly toMs?: number | undefined;
}

/** Whether the report was asked for a period at all. */
export const hasPeriod = (period: ReportPeriod): boolean =>
  period.fromMs !== undefined || period.toMs !== undefined;

/**
 * Whether a time belongs to the period. A record without a time (a bare
 * line, a bad line) belongs to the report only when no period was asked
 * for: it cannot be placed in one.
 */
export const inPeriod = (period: ReportPeriod, ms: number | undefined): boolean => {
  if (ms === undefined) return !hasPeriod(period);
  if (period.fromMs !== undefined && ms < period.fromMs) return false;
  return period.toMs === undefined || ms < period.toMs;
};
