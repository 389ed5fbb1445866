/**
 * `createOtelTracing`: the tracing port implemented with `@opentelemetry/api`.
 * Only this file (and `signfold/otel`, which exports it) loads that package.
 */
import {
  type Attributes,
  type Context,
  context,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type {
  TraceAttributes,
  TraceSpan,
  TraceSpanKind,
  TraceSpanOptions,
  Tracing,
} from '../engine/tracing.js';
import { deliveryTrace } from './delivery-trace.js';

/**
 * Anything that hands out tracers, as an OpenTelemetry `TracerProvider`
 * does (written structurally, so these declarations need no package).
 */
export interface TracerSource {
  /** The tracer named `name` (`signfold`). */
  getTracer(name: string, version?: string): unknown;
}

/** Options of {@link createOtelTracing}. */
export interface OtelTracingOptions {
  /** Where spans go; default the provider registered globally with `@opentelemetry/api`. */
  readonly tracerProvider?: TracerSource;
}

const KINDS: Readonly<Record<TraceSpanKind, SpanKind>> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
  internal: SpanKind.INTERNAL,
};

/** The port's attributes without their `undefined` members, which OpenTelemetry refuses. */
const attributesOf = (attributes: TraceAttributes | undefined): Attributes => {
  const kept: Attributes = {};
  if (attributes === undefined) return kept;
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined) kept[name] = value;
  }
  return kept;
};

/** A span of the port around an OpenTelemetry span. */
class OtelSpan implements TraceSpan {
  readonly span: Span;
  #ended = false;

  constructor(span: Span) {
    this.span = span;
  }

  setAttributes(attributes: TraceAttributes): void {
    if (!this.#ended) this.span.setAttributes(attributesOf(attributes));
  }

  fail(errorType: string, message: string): void {
    if (this.#ended) return;
    this.span.setAttribute('error.type', errorType);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
  }

  end(endTime?: number): void {
    if (this.#ended) return;
    this.#ended = true;
    this.span.end(endTime);
  }
}

/** The context a span starts in, and what it links to besides its options' links. */
const placeOf = (options: TraceSpanOptions): { parent: Context; links: Link[] } => {
  const links: Link[] = [];
  for (const link of options.links ?? []) {
    if (link instanceof OtelSpan) links.push({ context: link.span.spanContext() });
  }
  if (options.parent instanceof OtelSpan) {
    return { parent: trace.setSpan(ROOT_CONTEXT, options.parent.span), links };
  }
  const active = context.active();
  if (options.deliveryId === undefined) return { parent: active, links };
  // The delivery's trace comes first; a span active here (an application's HTTP span) is linked.
  const around = trace.getSpan(active);
  if (around !== undefined) links.push({ context: around.spanContext() });
  const { traceId, spanId } = deliveryTrace(options.deliveryId);
  const root = { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true };
  return { parent: trace.setSpanContext(ROOT_CONTEXT, root), links };
};

/**
 * The tracing port on OpenTelemetry: spans go to the tracer `signfold` of
 * `tracerProvider` (default the global provider). Spans of one delivery,
 * whichever process makes them, share one trace derived from its delivery
 * id (docs/tracing.md); a span without a delivery id or a parent starts in
 * the active context. Give the result to `createWebhookHandler`,
 * `createProjector`, `createProjectionWorker` or `createFileReactorRunner`
 * as their `tracing` option.
 */
export const createOtelTracing = (options: OtelTracingOptions = {}): Tracing => {
  const tracer = (options.tracerProvider?.getTracer('signfold') ??
    trace.getTracer('signfold')) as Tracer;
  return {
    enabled: true,
    startSpan: (name, spanOptions = {}) => {
      try {
        const { parent, links } = placeOf(spanOptions);
        const span = tracer.startSpan(
          name,
          {
            kind: KINDS[spanOptions.kind ?? 'internal'],
            attributes: attributesOf(spanOptions.attributes),
            links,
            ...(spanOptions.startTime === undefined ? {} : { startTime: spanOptions.startTime }),
          },
          parent,
        );
        return new OtelSpan(span);
      } catch {
        // A tracer that throws must not fail a delivery or a fold: that span is lost.
        return new OtelSpan(trace.wrapSpanContext({ ...INVALID, traceFlags: TraceFlags.NONE }));
      }
    },
  };
};

/** A span context OpenTelemetry treats as no span at all. */
const INVALID = { traceId: '0'.repeat(32), spanId: '0'.repeat(16) };
