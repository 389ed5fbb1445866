/**
 * The report page of some companies, made from their events on each load:
 * the same fold and the same page as `signfold report` (its recorder, model
 * and renderer, called as they are), over a view of the log that holds only
 * those companies' records. The page's figures (activity, timings, trend)
 * come from the events themselves, which no projection keeps, and a view
 * that leaves the other companies' records out cannot show any of them, nor
 * a bad line (which belongs to no company).
 */
import { wireId } from '../core/events/wire-id.js';
import { initialState } from '../core/projections/projection-state.js';
import type { Upcaster } from '../core/upcasters/upcaster-types.js';
import type { LogRecord, ReadOptions } from '../engine/event-log.js';
import { createProjector } from '../engine/projector.js';
import type { ReadableLog } from '../engine/projector-types.js';
import type { ReadModel } from '../engine/read-model.js';
import { buildReportModel } from './model/build-report-model.js';
import { PeriodReader } from './model/period-reader.js';
import { ReportRecorder } from './model/report-recorder.js';
import { renderReport } from './render-report.js';

/** How long a request stays open before the page calls it stuck: `signfold report`'s default. */
export const REPORT_STUCK_AFTER_MS = 7 * 86_400_000;

/**
 * Whether `record` is an event of one of `companies`: its `companyId` read
 * by the decoder's own rule, as the database's company column is, so both
 * storages leave out the same records.
 */
export const ofCompanies = (record: LogRecord, companies: ReadonlySet<number>): boolean => {
  if (record.kind !== 'entry') return false;
  const event = record.event;
  if (typeof event !== 'object' || event === null || !Object.hasOwn(event, 'companyId')) {
    return false;
  }
  const company = wireId((event as { companyId: unknown }).companyId);
  return company !== undefined && companies.has(company);
};

/** `log` with only the records of `companies`. */
export const companyView = (log: ReadableLog, companies: ReadonlySet<number>): ReadableLog => ({
  read: async function* (options?: ReadOptions) {
    for await (const batch of log.read(options)) {
      const kept = batch.filter((record) => ofCompanies(record, companies));
      if (kept.length > 0) yield kept;
    }
  },
});

/** What names the page: never the storage's path or URL, which a reader of one company need not know. */
export interface CompanyReportOptions {
  /** The words in place of the log's name on the page. */
  readonly label: string;
  /** The words that stand for the log in the page's `signfold inspect` command lines. */
  readonly inspectSource: readonly string[];
  readonly upcasters?: readonly Upcaster[];
}

/**
 * Folds `log`'s records of `companies` and renders the page. Reading the log
 * may throw (the caller answers 503); nothing else here does.
 */
export const renderCompanyReport = async (
  log: ReadableLog,
  companies: ReadonlySet<number>,
  options: CompanyReportOptions,
): Promise<string> => {
  // "Now" is when the page is made (read before the fold, as `signfold report` reads it).
  const nowMs = Date.now();
  const recorder = new ReportRecorder({});
  const projector = createProjector(
    { audit: true, policy: 'skip', upcasters: options.upcasters ?? [] },
    { state: initialState(), checkpoint: 0, audit: recorder },
  );
  const reader = new PeriodReader({}, () => projector.quarantine());
  await projector.replay(reader.view(companyView(log, companies)));
  const stats = projector.stats();
  const model = buildReportModel({
    log: options.label,
    inspectSource: options.inspectSource,
    state: projector.state(),
    stats,
    processed: stats.applied + stats.noOps + stats.conflicts + stats.invalid + stats.alreadyApplied,
    quarantine: projector.quarantine(),
    quarantineOrigins: reader.origins(),
    observations: recorder.observations(),
    incompleteTail: projector.incompleteTail(),
    stuckAfterMs: REPORT_STUCK_AFTER_MS,
    nowMs,
  });
  return renderReport(model);
};

/**
 * The live report of `companies` from a read model: the page `GET /report`
 * answers. Named by its companies, never by the storage's path or URL.
 */
export const renderReadModelReport = (
  model: ReadModel,
  companies: ReadonlySet<number>,
): Promise<string> => {
  const sorted = [...companies].sort((a, b) => a - b);
  return renderCompanyReport(model.events(companies), companies, {
    label: `the live state of companies ${sorted.join(', ')}`,
    inspectSource: model.source.inspectSource,
    upcasters: model.source.upcasters,
  });
};
