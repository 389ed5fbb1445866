/**
 * `signfold/otel`: OpenTelemetry traces of deliveries, appends, projections
 * and effect attempts, with the optional peer `@opentelemetry/api`. Nothing
 * else in signfold loads that package. See docs/tracing.md.
 */

export { TRACE_ATTRIBUTE } from '../engine/trace-attributes.js';
export {
  NO_TRACING,
  type TraceAttributes,
  type TraceSpan,
  type TraceSpanKind,
  type TraceSpanOptions,
  type Tracing,
} from '../engine/tracing.js';
export { type DeliveryTrace, deliveryTrace } from './delivery-trace.js';
export { createOtelTracing, type OtelTracingOptions, type TracerSource } from './otel-tracing.js';
