/**
 * The spans of a PostgreSQL partition batch: one `signfold.project.batch`
 * span in the worker's own trace for the batch (read, fold, write, commit),
 * and the projector's `signfold.project` span of each record, in its
 * delivery's trace, linked to it. A record's span says what the fold did;
 * whether the batch committed is the batch span's outcome, since the record
 * spans end when it is folded, before the transaction ends.
 */
import { TRACE_ATTRIBUTE } from '../../engine/trace-attributes.js';
import type { TraceSpan, TraceSpanOptions, Tracing } from '../../engine/tracing.js';

/** The trace of one batch. */
export interface BatchTrace {
  /** What the batch's projector traces to: its record spans link to the batch span. */
  readonly tracing: Tracing;
  /** Ends the batch span with the batch's outcome (`committed`, `lost`, `refolded`, `failed`). */
  end(outcome: string, records: number, failure?: string): void;
}

/** Starts the span of the batch of `partition` over positions `from` (excluded) to `to`. */
export const startBatchTrace = (
  tracing: Tracing,
  partition: number,
  from: number,
  to: number,
): BatchTrace => {
  const span: TraceSpan = tracing.startSpan('signfold.project.batch', {
    kind: 'consumer',
    attributes: {
      [TRACE_ATTRIBUTE.partition]: partition,
      [TRACE_ATTRIBUTE.batchFrom]: from + 1,
      [TRACE_ATTRIBUTE.batchTo]: to,
    },
  });
  const links = [span];
  return {
    tracing: {
      enabled: true,
      startSpan: (name: string, options: TraceSpanOptions = {}) =>
        tracing.startSpan(name, { ...options, links: [...(options.links ?? []), ...links] }),
    },
    end: (outcome, records, failure) => {
      span.setAttributes({
        [TRACE_ATTRIBUTE.outcome]: outcome,
        [TRACE_ATTRIBUTE.batchRecords]: records,
      });
      if (failure !== undefined) span.fail('batch-failed', failure);
      span.end();
    },
  };
};
