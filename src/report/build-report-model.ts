/**
 * Builds the {@link ReportModel} of a replayed log: pure, from the projector's
 * final state, counters and quarantine, and what a `ReportRecorder`
 * gathered. Every status and outcome comes from the core (projections,
 * queries, the outcomes the engine recorded).
 */
import type { ProjectorStats } from '../engine/projector-types.js';
import type { QuarantineEntry } from '../engine/quarantine.js';
import { countProjections, countProjectionsByCompany } from '../projections/projection-counts.js';
import type { ProjectionState } from '../projections/projection-state.js';
import { buildActivity } from './activity.js';
import { problemsByKind, quarantineModel } from './quarantine-rows.js';
import type { CompanyRow, ReportModel } from './report-model.js';
import type { LogObservations } from './report-recorder.js';
import { buildStuck } from './stuck-requests.js';
import { templateRows } from './template-rows.js';
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
  /** What a `ReportRecorder` gathered during the replay. */
  readonly observations: LogObservations;
  readonly incompleteTail?: { readonly position: number; readonly line: number } | undefined;
  /** A request `sent` longer than this (ms) before the latest `receivedAt` is stuck. */
  readonly stuckAfterMs: number;
}

/** Builds the report model of one log. Same input, same model. */
export const buildReportModel = (input: ReportInput): ReportModel => {
  const { state, stats } = input;
  const { requests: times, latest, perHour } = input.observations;
  const templates = templateRows(state);
  const stuck = buildStuck(
    state,
    times,
    latest,
    input.stuckAfterMs,
    input.inspectSource ?? [input.log],
  );
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
  return {
    log: input.log,
    overview: {
      processed: input.processed,
      applied: stats.applied,
      noOps: stats.noOps,
      conflicts: stats.conflicts,
      invalid: stats.invalid,
      problemsByKind: problemsByKind(input.quarantine),
      counts: countProjections(state),
      incompleteTail: input.incompleteTail ?? undefined,
    },
    templates,
    timings: buildTimings(state, times, templates),
    activity: buildActivity(perHour),
    trend: buildTrend(times.values()),
    stuck,
    quarantine: quarantineModel(input.quarantine),
    companies,
  };
};
