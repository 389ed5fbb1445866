/**
 * The figures an operations lead reads for any group of sign requests (a
 * template, a sender, an owner, a company, all of them): how many were
 * sent, how many completed of those sent, how many are still open and
 * stuck, and how long completing took. One pass classifies each request of
 * the period; groups are sums over it, so every table and the summary agree.
 */
import type { ProjectionState } from '../../core/projections/projection-state.js';
import type { SignRequestView } from '../../core/projections/records.js';
import { signRequestMove } from '../../core/projections/status-rules.js';
import { quantile } from './durations.js';
import { hasPeriod, inPeriod, type ReportPeriod } from './report-period.js';
import type { RequestTimes } from './request-times.js';
import type { RequestFigures } from './summary-model.js';

/** One request of the period, as the report counts it. */
export interface ClassifiedRequest {
  readonly request: SignRequestView;
  readonly times: RequestTimes | undefined;
  readonly outcome: 'completed' | 'declined' | 'open';
  /** Open for longer than the threshold (see {@link isStuck}). */
  readonly stuck: boolean;
  /** For an open request with a sent time: how long it has been open, as of now. */
  readonly openMs: number | undefined;
  /** For a completed request with both times in order: sent to completed. */
  readonly completeMs: number | undefined;
}

/** A request sent at `sentAt` and still open is stuck when now minus that is over the threshold. */
export const isStuck = (sentAt: number | undefined, now: number, thresholdMs: number): boolean =>
  sentAt !== undefined && now - sentAt > thresholdMs;

/**
 * The requests the report counts: not deleted, at `sent` or beyond (as
 * `templateStats` counts them), and, when a period was asked for, sent in
 * it. `now` is what ages are measured against (see `referenceTime`;
 * `undefined` when the log has no `receivedAt`: nothing is stuck).
 */
export const classifyRequests = (
  state: ProjectionState,
  times: ReadonlyMap<number, RequestTimes>,
  now: number | undefined,
  thresholdMs: number,
  period: ReportPeriod,
): ClassifiedRequest[] => {
  const periodic = hasPeriod(period);
  const out: ClassifiedRequest[] = [];
  for (const request of state.signRequests.values()) {
    if (request.deleted || signRequestMove(request.status, 'sent') === 'forward') continue;
    const t = times.get(request.id);
    if (periodic && !inPeriod(period, t?.sentAt)) continue;
    const outcome =
      request.status === 'completed' || request.status === 'declined' ? request.status : 'open';
    const sentAt = t?.sentAt;
    const open = outcome === 'open';
    const completeMs =
      outcome === 'completed' && sentAt !== undefined && t?.finishedAt !== undefined
        ? t.finishedAt - sentAt
        : undefined;
    out.push({
      request,
      times: t,
      outcome,
      stuck: open && now !== undefined && isStuck(sentAt, now, thresholdMs),
      openMs: open && now !== undefined && sentAt !== undefined ? now - sentAt : undefined,
      // Delivered out of order (finished before sent): no duration.
      completeMs: completeMs !== undefined && completeMs >= 0 ? completeMs : undefined,
    });
  }
  return out;
};

const ratio = (part: number, whole: number): number | undefined =>
  whole === 0 ? undefined : part / whole;

/** The figures of some classified requests. */
export const figuresOf = (requests: readonly ClassifiedRequest[]): RequestFigures => {
  let completed = 0;
  let declined = 0;
  let open = 0;
  let stuck = 0;
  let oldestOpenMs: number | undefined;
  const durations: number[] = [];
  for (const r of requests) {
    if (r.outcome === 'completed') completed += 1;
    else if (r.outcome === 'declined') declined += 1;
    else open += 1;
    if (r.stuck) stuck += 1;
    if (r.openMs !== undefined && (oldestOpenMs === undefined || r.openMs > oldestOpenMs)) {
      oldestOpenMs = r.openMs;
    }
    if (r.completeMs !== undefined) durations.push(r.completeMs);
  }
  durations.sort((a, b) => a - b);
  const sent = requests.length;
  return {
    sent,
    completed,
    declined,
    open,
    stuck,
    completedOfSent: ratio(completed, sent),
    completedOfFinished: ratio(completed, completed + declined),
    declinedOfFinished: ratio(declined, completed + declined),
    oldestOpenMs,
    timed: durations.length,
    medianCompleteMs: quantile(durations, 0.5),
    p90CompleteMs: quantile(durations, 0.9),
  };
};

/** Classified requests grouped by `key` (first-seen order; `undefined` keys left out). */
export const groupRequests = <K>(
  requests: readonly ClassifiedRequest[],
  key: (r: ClassifiedRequest) => K | undefined,
): Map<K, ClassifiedRequest[]> => {
  const groups = new Map<K, ClassifiedRequest[]>();
  for (const r of requests) {
    const k = key(r);
    if (k === undefined) continue;
    const list = groups.get(k);
    if (list === undefined) groups.set(k, [r]);
    else list.push(r);
  }
  return groups;
};
