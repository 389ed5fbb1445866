/** Builds report models from events given with their `receivedAt`, through the real projector. */

import { initialState } from '../../src/core/projections/projection-state.js';
import { createProjector } from '../../src/engine/projector.js';
import { buildReportModel } from '../../src/report/model/build-report-model.js';
import type { ReportModel } from '../../src/report/model/report-model.js';
import { ReportRecorder } from '../../src/report/model/report-recorder.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** The time the fixtures count from. */
export const T0 = Date.UTC(2025, 0, 6, 9, 0, 0);

/** An event and when it was received (ms after {@link T0}). */
export interface Delivery {
  readonly event: object;
  readonly at: number;
}

/**
 * Applies `deliveries` in order to a projector with a recorder (as `signfold
 * report` does) and builds the model. `bare` drops the times, as bare lines have none.
 */
export const modelOf = (
  deliveries: readonly Delivery[],
  options: {
    readonly log?: string;
    readonly stuckAfterMs?: number;
    readonly bare?: boolean;
    /** "Now", ms after {@link T0}; default: the last delivery's time, as if the report ran then. */
    readonly now?: number;
    readonly staleAfterMs?: number;
  } = {},
): ReportModel => {
  const recorder = new ReportRecorder();
  const projector = createProjector(
    { audit: true },
    { state: initialState(), checkpoint: 0, audit: recorder },
  );
  deliveries.forEach(({ event, at }, index) => {
    const receivedAt = options.bare === true ? undefined : new Date(T0 + at).toISOString();
    projector.apply({
      position: index + 1,
      event,
      ...(receivedAt === undefined ? {} : { receivedAt }),
    });
  });
  const stats = projector.stats();
  return buildReportModel({
    log: options.log ?? 'events.ndjson',
    state: projector.state(),
    stats,
    processed: deliveries.length,
    quarantine: projector.quarantine(),
    observations: recorder.observations(),
    stuckAfterMs: options.stuckAfterMs ?? 7 * DAY,
    nowMs: T0 + (options.now ?? Math.max(0, ...deliveries.map((d) => d.at))),
    ...(options.staleAfterMs === undefined ? {} : { staleAfterMs: options.staleAfterMs }),
  });
};
