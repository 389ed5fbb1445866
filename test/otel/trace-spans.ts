/**
 * What the trace tests share: the real OpenTelemetry SDK with its in-memory
 * exporter, one signed delivery, and the spans of one trace by name.
 */
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createOtelTracing } from '../../src/otel/otel-tracing.js';
import { signWebhookBody } from '../../src/webhooks/sign-payload.js';

/** A provider that keeps every span it ends, and the tracing port on it. */
export const collectSpans = () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return {
    tracing: createOtelTracing({ tracerProvider: provider }),
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    // Not shutdown: the in-memory exporter forgets its spans when shut down.
    flush: () => provider.forceFlush(),
  };
};

export const SECRET = 'trace-secret';

/** A sign-request-sent event of sign request `id`, as the service sends it. */
export const sentEvent = (id: number) =>
  JSON.stringify({
    type: 'sign-request-sent',
    companyId: 1,
    signRequestId: id,
    signRequestName: 'NDA',
    senderId: 3,
    senderName: 'Sam',
    ownerId: 3,
    ownerName: 'Sam',
    templateId: 7,
    templateName: 'Mutual NDA',
  });

/** A signed POST of `body` under delivery id `deliveryId`. */
export const signedDelivery = (body: string, deliveryId: string) => {
  const bytes = new TextEncoder().encode(body);
  return {
    method: 'POST',
    headers: { 'x-signature': signWebhookBody(bytes, SECRET), 'x-delivery-id': deliveryId },
    body: bytes,
  };
};

/** The spans named `name`, in the order they ended. */
export const named = (spans: readonly ReadableSpan[], name: string): ReadableSpan[] =>
  spans.filter((span) => span.name === name);

/** The one span named `name`; fails when there is not exactly one. */
export const only = (spans: readonly ReadableSpan[], name: string): ReadableSpan => {
  const found = named(spans, name);
  if (found.length !== 1) {
    throw new Error(`expected one ${name} span, got ${found.length}: ${spans.map((s) => s.name)}`);
  }
  return found[0] as ReadableSpan;
};
