/**
 * Builds the {@link ReportModel} of a replayed log: pure, from the projector's
 * final state, counters and quarantine, and what a `ReportRecorder`
 * gathered. Every status and outcome comes from the core (projections,
 * queries, the outcomes the engine recorded).
 */

import type { SignRequestId } from '../../core/ids.js';
import {
  countProjections,
  countProjectionsByCompany,
} from '../../core/projections/projection-counts.js';
import type { ProjectionState } from '../../core/projections/projection-state.js';
import type { ProjectorStats } from '../../engine/projector-types.js';
import type { QuarantineEntry } from '../../engine/quarantine.js';
import { buildActivity } from './activity.js';
import { buildPeople, buildSummary } from './build-summary.js';
import type { QuarantineOrigin } from './period-reader.js';
import { problemsByKind, quarantineModel } from './quarantine-rows.js';
import type { CompanyRow, ReportModel } from './report-model.js';
import { hasPeriod, inPeriod, type ReportPeriod } from './report-period.js';
import type { LogObservations } from './report-recorder.js';
import { classifyRequests } from './request-figures.js';
import type { RequestTimes } from './request-times.js';
import { buildStuck } from './stuck-requests.js';
import type { AsOfBasis } from './summary-model.js';
import { MAX_CHARTED_COMPANIES } from './summary-model.js';
import { templateRows } from './template-rows.js';
import { timesWithViews } from './times-with-views.js';
import { buildTimings } from './timings.js';
import { buildTrend } from './trend.js';

/** What a report is built from: the result of replaying a log with audit trails on. */
export interface ReportInput {
  /** The log as the user named it (shown on the page). */
  readonly log: string;
  /**
   * The words that name the log to `signfold inspect` in the stuck requests'
   * command lines (`--database URL` for a database); default: `[log]`.
   */
  readonly inspectSource?: readonly string[];
  readonly state: ProjectionState;
  readonly stats: ProjectorStats;
  /** Records processed, whatever became of them. */
  readonly processed: number;
  readonly quarantine: readonly QuarantineEntry[];
  /** When and as what each quarantined record arrived (same order; a `PeriodReader`'s). */
  readonly quarantineOrigins?: readonly QuarantineOrigin[];
  /** What a `ReportRecorder` gathered during the replay. */
  readonly observations: LogObservations;
  readonly incompleteTail?: { readonly position: number; readonly line: number } | undefined;
  /**
   * When the report is made (epoch ms): the clock, or `--now`. Ages, stuck
   * requests and the end of the trend are measured against it (see
   * {@link referenceTime}), never against the latest `receivedAt`, so a log
   * that stopped receiving does not look as fresh as the day it stopped.
   */
  readonly nowMs: number;
  /** Whether {@link nowMs} was given (`--now`) rather than read from the clock: the page says which. */
  readonly nowGiven?: boolean;
  /** A request `sent` longer than this (ms) before "now" is stuck. */
  readonly stuckAfterMs: number;
  /** The page warns when the last delivery is older than this (ms) at "now"; default an hour. */
  readonly staleAfterMs?: number;
  /** `--from` / `--to` (the recorder and the reader must have been given the same). */
  readonly period?: ReportPeriod;
}

/**
 * The quarantined records of the period: those received in it, and those
 * that carry no time (bad lines, bare lines), which no period can leave out
 * without hiding a problem.
 */
export const quarantineOfPeriod = (
  entries: readonly QuarantineEntry[],
  origins: readonly QuarantineOrigin[],
  period: ReportPeriod,
): { entries: QuarantineEntry[]; origins: (QuarantineOrigin | undefined)[] } => {
  const kept: QuarantineEntry[] = [];
  const keptOrigins: (QuarantineOrigin | undefined)[] = [];
  entries.forEach((entry, index) => {
    const at = origins[index]?.receivedAt;
    if (at !== undefined && !inPeriod(period, at)) return;
    kept.push(entry);
    keptOrigins.push(origins[index]);
  });
  return { entries: kept, origins: keptOrigins };
};

/** The default of {@link ReportInput.staleAfterMs}: an hour without a delivery. */
export const DEFAULT_STALE_AFTER_MS = 3_600_000;

/**
 * The time the report measures against, and why that one: `now` itself;
 * the end of the period when `--to` is earlier (statuses are those at
 * `--to`, so an age measured later would count time nothing was read for);
 * or the latest `receivedAt` when the log holds a time later than both (a
 * clock behind the sender's), so that no age is negative.
 */
export const referenceTime = (
  nowMs: number,
  period: ReportPeriod,
  latest: number | undefined,
): { readonly ms: number; readonly basis: AsOfBasis } => {
  const end =
    period.toMs !== undefined && period.toMs < nowMs
      ? { ms: period.toMs, basis: 'period-end' as const }
      : { ms: nowMs, basis: 'now' as const };
  return latest !== undefined && latest > end.ms ? { ms: latest, basis: 'latest' } : end;
};

/**
 * The trend of each company, from the same request times as the whole log's
 * trend (so the companies' add up to it), when there are several companies.
 */
const trendByCompany = (
  state: ProjectionState,
  times: ReadonlyMap<number, RequestTimes>,
  endMs: number | undefined,
) => {
  const groups = new Map<number, RequestTimes[]>();
  for (const [id, t] of times) {
    const companyId = state.signRequests.get(id as SignRequestId)?.companyId;
    if (companyId === undefined || companyId === null) continue;
    const list = groups.get(companyId);
    if (list === undefined) groups.set(companyId, [t]);
    else list.push(t);
  }
  if (groups.size < 2 || groups.size > MAX_CHARTED_COMPANIES) return [];
  return [...groups]
    .sort(([a], [b]) => a - b)
    .flatMap(([companyId, list]) => {
      const trend = buildTrend(list, endMs);
      return trend === undefined ? [] : [{ companyId, trend }];
    });
};

/** Builds the report model of one log. Same input, same model. */
export const buildReportModel = (input: ReportInput): ReportModel => {
  const { state, stats } = input;
  const period = input.period ?? {};
  const { latest, perHour } = input.observations;
  const times = timesWithViews(state, input.observations.requests);
  const asOf = referenceTime(input.nowMs, period, latest);
  // Without any receivedAt no request has a sent time: nothing has an age to measure.
  const asOfMs = latest === undefined ? undefined : asOf.ms;
  const requests = classifyRequests(state, times, asOfMs, input.stuckAfterMs, period);
  const templates = templateRows(state, requests);
  const stuck = buildStuck(
    state,
    requests,
    asOfMs,
    input.stuckAfterMs,
    input.inspectSource ?? [input.log],
  );
  const quarantine = quarantineOfPeriod(input.quarantine, input.quarantineOrigins ?? [], period);
  const companies: CompanyRow[] = [...countProjectionsByCompany(state)]
    .sort(([a], [b]) => a - b)
    .map(([companyId, counts]) => {
      const { completed, declined } = counts.signRequests;
      return {
        companyId,
        counts,
        completionRate: completed + declined === 0 ? undefined : completed / (completed + declined),
        stuck: stuck.byCompany.get(companyId) ?? 0,
      };
    });
  // The trend and the timings cover the requests of the period only.
  const periodTimes = new Map<number, RequestTimes>();
  for (const r of requests) if (r.times !== undefined) periodTimes.set(r.request.id, r.times);
  return {
    log: input.log,
    summary: buildSummary({
      state,
      requests,
      period,
      latest,
      asOf: { ms: asOf.ms, basis: asOf.basis, given: input.nowGiven === true },
      staleAfterMs: input.staleAfterMs ?? DEFAULT_STALE_AFTER_MS,
      firstInPeriod: input.observations.firstInPeriod,
      lastInPeriod: input.observations.lastInPeriod,
      repairs: input.observations.repairs,
      stuckAfterMs: input.stuckAfterMs,
      quarantine: quarantine.entries,
    }),
    people: buildPeople(requests),
    overview: {
      processed: input.processed,
      applied: stats.applied,
      noOps: stats.noOps,
      conflicts: stats.conflicts,
      invalid: stats.invalid,
      problemsByKind: problemsByKind(quarantine.entries),
      counts: countProjections(state),
      incompleteTail: input.incompleteTail ?? undefined,
    },
    templates,
    timings: buildTimings(state, hasPeriod(period) ? periodTimes : times, templates),
    activity: buildActivity(perHour),
    trend: buildTrend((hasPeriod(period) ? periodTimes : times).values(), asOfMs),
    trendByCompany: trendByCompany(state, hasPeriod(period) ? periodTimes : times, asOfMs),
    stuck,
    quarantine: quarantineModel(quarantine.entries, quarantine.origins),
    companies,
  };
};
