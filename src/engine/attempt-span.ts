/**
 * The span of one effect attempt, the same on every engine: in the trace of
 * the delivery whose event planned the effect, with the effect's reactor,
 * id and attempt number, and its outcome.
 */
import { TRACE_ATTRIBUTE } from './trace-attributes.js';
import type { TraceAttributes, TraceSpan, Tracing } from './tracing.js';

/** What the span of one attempt says. */
export interface AttemptSpanStart {
  readonly reactor: string;
  readonly id: number | string;
  readonly position: number;
  readonly attempt: number;
  readonly deliveryId?: string | undefined;
  readonly attributes?: TraceAttributes | undefined;
}

/** Starts a `signfold.effect.attempt` span in the trace of the effect's delivery. */
export const startAttemptSpan = (tracing: Tracing, start: AttemptSpanStart): TraceSpan =>
  tracing.startSpan('signfold.effect.attempt', {
    kind: 'internal',
    deliveryId: start.deliveryId,
    attributes: {
      ...start.attributes,
      [TRACE_ATTRIBUTE.deliveryId]: start.deliveryId,
      [TRACE_ATTRIBUTE.position]: start.position,
      [TRACE_ATTRIBUTE.reactor]: start.reactor,
      [TRACE_ATTRIBUTE.effectId]: String(start.id),
      [TRACE_ATTRIBUTE.attempt]: start.attempt,
    },
  });

/** Ends an attempt's span with its outcome: `succeeded`, `failed` or `interrupted`. */
export const endAttemptSpan = (
  span: TraceSpan,
  outcome: 'succeeded' | 'failed' | 'interrupted',
  error?: string,
): void => {
  span.setAttributes({ [TRACE_ATTRIBUTE.outcome]: outcome });
  if (outcome === 'failed') span.fail('effect-failed', error ?? '');
  span.end();
};
