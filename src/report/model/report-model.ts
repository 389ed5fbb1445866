/**
 * The report of one log as plain data: everything the HTML page shows, already
 * counted, sorted and cut to size, so rendering is a pure function of it and
 * the same log always gives the same page.
 */
import type { EventType } from '../../core/events/event-members.js';
import type { ProjectionCounts } from '../../core/projections/projection-counts.js';
import type { ParticipantStatus, TemplateStatus } from '../../core/projections/records.js';
import type { PeopleModel, RequestFigures, SummaryModel } from './summary-model.js';
import type { TrendModel } from './trend.js';

/** How many stuck requests and quarantined records the page lists (the totals are always shown). */
export const LISTED_ROWS = 1000;

/** Overview: what became of the records and what they folded into. */
export interface OverviewModel {
  readonly processed: number;
  readonly applied: number;
  readonly noOps: number;
  readonly conflicts: number;
  readonly invalid: number;
  /** Quarantined records by category and kind, e.g. `invalid event` / `missing-member`. */
  readonly problemsByKind: readonly ProblemKindCount[];
  readonly counts: ProjectionCounts;
  /** An unterminated last line that was left for later (see `replay`), if any. */
  readonly incompleteTail: { readonly position: number; readonly line: number } | undefined;
}

/** One kind of quarantined record and how many there are. */
export interface ProblemKindCount {
  readonly category: 'bad line' | 'invalid event' | 'conflict';
  readonly kind: string;
  readonly count: number;
}

/** Participants of a template's (non-deleted) requests by how far they got. */
export interface ParticipantFunnel {
  /** Every participant: all were sent the request. */
  readonly sent: number;
  /** Those at `viewed` or beyond in the lifecycle (signing or declining counts as having viewed). */
  readonly viewed: number;
  readonly signed: number;
  readonly declined: number;
  /** Still `sent` or `viewed`. */
  readonly waiting: number;
}

/** One row of the per-template table; `templateId` `null` gathers requests without a template. */
export interface TemplateRow {
  readonly templateId: number | null;
  readonly name: string;
  readonly companyId: number | null;
  readonly status: TemplateStatus | undefined;
  /** Non-deleted requests made from it that reached `sent` or beyond. */
  readonly requests: number;
  readonly completed: number;
  readonly declined: number;
  /** `completed / (completed + declined)`, `undefined` before any finished. */
  readonly completionRate: number | undefined;
  /** `declined / (completed + declined)`. */
  readonly declineRate: number | undefined;
  readonly participants: ParticipantFunnel;
  /** All its figures (open, stuck, completed of sent, time to complete). */
  readonly figures: RequestFigures;
}

/** Median and 90th percentile of some durations, in milliseconds. */
export interface DurationSummary {
  readonly count: number;
  readonly medianMs: number | undefined;
  readonly p90Ms: number | undefined;
}

/** Time from `sign-request-sent` to the final event, per template. */
export interface TemplateTimingRow {
  readonly templateId: number | null;
  readonly name: string;
  readonly companyId: number | null;
  readonly completed: DurationSummary;
  readonly declined: DurationSummary;
  /** Its requests still open: they have no duration, so the median and p90 leave them out. */
  readonly open: number;
}

/** One bin of the distribution of durations. */
export interface DurationBin {
  readonly label: string;
  readonly completed: number;
  readonly declined: number;
}

/** Timings, from the `receivedAt` of envelope lines. */
export interface TimingsModel {
  /** Requests with both a sent and a final time. */
  readonly measured: number;
  readonly all: TemplateTimingRow;
  readonly perTemplate: readonly TemplateTimingRow[];
  readonly distribution: readonly DurationBin[];
  /** The same for each company (by id), when there are several: what the company filter shows. */
  readonly perCompany: readonly {
    readonly companyId: number;
    readonly all: TemplateTimingRow;
    readonly distribution: readonly DurationBin[];
  }[];
}

/** Events received in one period: an hour, a day, a month or a year, by the span of the log. */
export interface ActivityRow {
  /** `YYYY-MM-DD HHh`, `YYYY-MM-DD`, `YYYY-MM` or `YYYY`, UTC. */
  readonly period: string;
  /** Counts in the order of {@link ActivityModel.types}. */
  readonly byType: readonly number[];
  readonly total: number;
  readonly conflicts: number;
}

/** Activity over time, from `receivedAt`. */
export interface ActivityModel {
  readonly unit: 'hour' | 'day' | 'month' | 'year';
  /** The event types that occur, in the order of `EVENT_TYPES`. */
  readonly types: readonly EventType[];
  /** Every period from the first to the last, empty ones included. */
  readonly rows: readonly ActivityRow[];
}

/** A participant still expected to act. */
export interface AwaitingParticipant {
  readonly id: number;
  readonly name: string;
  readonly status: ParticipantStatus;
  /** When it was sent the request or viewed it (ISO), if that event carried a time. */
  readonly since: string | undefined;
}

/** A request `sent` for longer than the threshold without a final event. */
export interface StuckRequest {
  readonly id: number;
  readonly name: string;
  readonly companyId: number | null;
  readonly templateName: string | undefined;
  /** When it was sent (its first applied `sign-request-sent`, else its first applied event). */
  readonly sentAt: string;
  readonly ageMs: number;
  readonly senderId: number | undefined;
  readonly senderName: string | undefined;
  /** The latest `receivedAt` of any event naming it (ISO). */
  readonly lastActivity: string | undefined;
  readonly awaiting: readonly AwaitingParticipant[];
  /** Every participant signed, yet no completion arrived: a missed webhook, to reconcile. */
  readonly allSigned: boolean;
  /** The `signfold inspect` command line that shows its timeline. */
  readonly inspectCommand: string;
}

/** Stuck requests, measured against "now" (see `referenceTime`). */
export interface StuckModel {
  readonly thresholdMs: number;
  /** "Now" (ISO); `undefined` when the log has no `receivedAt` (bare lines only). */
  readonly asOf: string | undefined;
  readonly total: number;
  /** How many are stuck per company. */
  readonly byCompany: ReadonlyMap<number, number>;
  /** The oldest first, at most {@link LISTED_ROWS}. */
  readonly listed: readonly StuckRequest[];
  /**
   * The words that name the log in the page's command lines (`events.ndjson`,
   * `--database URL`): of `signfold inspect`, and of `signfold reconcile` for
   * the requests fully signed without a completion.
   */
  readonly source: readonly string[];
}

/** One quarantined record. */
export interface QuarantineRow {
  readonly position: number;
  readonly line: number | undefined;
  readonly category: ProblemKindCount['category'];
  readonly kind: string;
  readonly message: string;
}

/** Quarantined records of one kind with one message (ids and positions normalized out). */
export interface QuarantineGroup {
  readonly category: ProblemKindCount['category'];
  readonly kind: string;
  /** The message, with numbers shown as `#` when the group's messages differ only in them. */
  readonly message: string;
  readonly count: number;
  /** First and last `receivedAt` (ISO) among its records that carry one. */
  readonly first: string | undefined;
  readonly last: string | undefined;
  /** The delivery id of its first record that has one. */
  readonly sampleDeliveryId: string | undefined;
  /** Position of its first record. */
  readonly samplePosition: number;
}

/** The quarantine: total, groups, and the first {@link LISTED_ROWS} records. */
export interface QuarantineModel {
  readonly total: number;
  /** Most records first. */
  readonly groups: readonly QuarantineGroup[];
  readonly listed: readonly QuarantineRow[];
}

/** One company's share of the log. */
export interface CompanyRow {
  readonly companyId: number;
  readonly counts: ProjectionCounts;
  readonly completionRate: number | undefined;
  readonly stuck: number;
}

/** Everything the page shows. */
export interface ReportModel {
  /** The log, as named on the command line. */
  readonly log: string;
  readonly summary: SummaryModel;
  readonly people: PeopleModel;
  readonly overview: OverviewModel;
  readonly templates: readonly TemplateRow[];
  /** `undefined` when no request has both times (e.g. a log of bare lines). */
  readonly timings: TimingsModel | undefined;
  /** `undefined` when no event has a `receivedAt`. */
  readonly activity: ActivityModel | undefined;
  /** Requests sent and completed per period; `undefined` when none has a sent time. */
  readonly trend: TrendModel | undefined;
  /** The trend of each company (by id) when there are several: what the company filter shows. */
  readonly trendByCompany: readonly { readonly companyId: number; readonly trend: TrendModel }[];
  readonly stuck: StuckModel;
  readonly quarantine: QuarantineModel;
  /** One row per company, by id; the page shows them when there are several. */
  readonly companies: readonly CompanyRow[];
}
