/** Builds report models from events given with their `receivedAt`, through the real projector. */
import { createProjector } from '../../src/engine/projector.js';
import { buildReportModel } from '../../src/report/build-report-model.js';
import type { ReportModel } from '../../src/report/report-model.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** The time the fixtures count from. */
export const T0 = Date.UTC(2025, 0, 6, 9, 0, 0);

/** An event and when it was received (ms after {@link T0}); `undefined` for none. */
export interface Delivery {
  readonly event: object;
  readonly at?: number;
}

/** Replays `deliveries` (audit on, as `signfold report` does) and builds the model. */
export const modelOf = async (
  deliveries: readonly Delivery[],
  options: { readonly log?: string; readonly stuckAfterMs?: number; readonly bare?: boolean } = {},
): Promise<ReportModel> => {
  const log = createMemoryEventLog({ now: () => new Date(T0) });
  for (const { event, at } of deliveries) {
    await log.append(event, at === undefined ? {} : { receivedAt: new Date(T0 + at) });
  }
  const projector = createProjector({ audit: true });
  (await projector.replay(log))._unsafeUnwrap();
  const stats = projector.stats();
  const audit = projector.auditTrail()?.toData() ?? { signRequests: [], templates: [] };
  // The memory log stamps every append: `bare` drops the times, as bare lines of a file have none.
  const strip = (trails: typeof audit.templates) =>
    trails.map(
      ([id, entries]) => [id, entries.map((e) => ({ ...e, receivedAt: undefined }))] as const,
    );
  return buildReportModel({
    log: options.log ?? 'events.ndjson',
    state: projector.state(),
    stats,
    processed: stats.applied + stats.noOps + stats.conflicts + stats.invalid,
    quarantine: projector.quarantine(),
    audit:
      options.bare === true
        ? { signRequests: strip(audit.signRequests), templates: strip(audit.templates) }
        : audit,
    stuckAfterMs: options.stuckAfterMs ?? 7 * DAY,
  });
};
