/**
 * The tracing port: what the webhook handler, the projector, the PostgreSQL
 * worker and the reactor runners tell about their work, in spans. The
 * engine knows no tracing library: `signfold/otel` implements this port with
 * `@opentelemetry/api`, and {@link NO_TRACING}, the default everywhere, does
 * nothing, so code that is not traced never loads that package and gathers
 * no attribute (callers test `enabled` before building any).
 *
 * Spans of one delivery run in several processes (the one that appends, the
 * ones that project and react later) and nothing is stored with the record
 * to carry a context from one to the other: a span says which delivery it
 * belongs to (`deliveryId`), and the implementation puts every span of that
 * delivery in the same trace (see docs/tracing.md).
 */

/** Attribute values; an `undefined` member is left out. */
export type TraceAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** The OpenTelemetry span kinds, by name. */
export type TraceSpanKind = 'server' | 'client' | 'producer' | 'consumer' | 'internal';

/** How a span starts. */
export interface TraceSpanOptions {
  /** Default `internal`. */
  readonly kind?: TraceSpanKind;
  readonly attributes?: TraceAttributes;
  /** A span of this process it is part of; without one, the span joins its delivery's trace. */
  readonly parent?: TraceSpan | undefined;
  /** The delivery the span is about: its trace is that delivery's (none: a trace of its own). */
  readonly deliveryId?: string | undefined;
  /** Spans of this process it relates to without being part of them (a batch it was folded in). */
  readonly links?: readonly TraceSpan[];
  /** When it started, ms since the epoch; default now. */
  readonly startTime?: number;
}

/** A started span. */
export interface TraceSpan {
  /** Adds or replaces attributes. */
  setAttributes(attributes: TraceAttributes): void;
  /** Marks the span failed (`error.type` and an error status) with a printable `message`. */
  fail(errorType: string, message: string): void;
  /** Ends the span (at `endTime`, ms since the epoch, or now); later calls do nothing. */
  end(endTime?: number): void;
}

/** The port. */
export interface Tracing {
  /** `false` for {@link NO_TRACING}: callers skip the work of describing spans. */
  readonly enabled: boolean;
  /** Starts a span named `name`. Never throws. */
  startSpan(name: string, options?: TraceSpanOptions): TraceSpan;
}

const NO_SPAN: TraceSpan = {
  setAttributes: () => undefined,
  fail: () => undefined,
  end: () => undefined,
};

/** The tracing of code nobody traces: every span is one shared object that does nothing. */
export const NO_TRACING: Tracing = Object.freeze({
  enabled: false,
  startSpan: () => NO_SPAN,
});
