/**
 * One delivery's trace on the file engine, with the real OpenTelemetry SDK:
 * received and appended by the webhook handler on a real file log, then
 * projected and reacted to by the file reactor runner (as `react` or
 * `serve --reactors` run it), its effect failing once and succeeding the
 * second time. Every span is in the trace its delivery id names.
 */
import { join } from 'node:path';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, describe, expect, it } from 'vitest';
import { defineReactor } from '../../src/core/reactors/define-reactor.js';
import { deliveryTrace } from '../../src/otel/delivery-trace.js';
import { openFileEventLog } from '../../src/store/file-event-log.js';
import { createFileReactorRunner } from '../../src/store/reactors/file-reactor-runner.js';
import { createWebhookHandler } from '../../src/webhooks/webhook-handler.js';
import { removeTempDirs, tempDir } from '../reliability/fixtures/reliability-helpers.js';
import { collectSpans, named, only, SECRET, sentEvent, signedDelivery } from './trace-spans.js';

afterAll(removeTempDirs);

describe('a delivery traced on the file engine', () => {
  it('delivery, append, projection and each effect attempt, in the trace of its delivery id', async () => {
    const { tracing, spans, flush } = collectSpans();
    const dir = await tempDir();
    const path = join(dir, 'events.ndjson');
    const log = (await openFileEventLog(path))._unsafeUnwrap();
    const handler = createWebhookHandler({ log, secrets: [SECRET], tracing });
    // An unrelated delivery first, so the traced one is not at position 1.
    await handler(signedDelivery(sentEvent(41), 'd-other'));
    const answer = await handler(signedDelivery(sentEvent(42), 'd-42'));
    expect(answer.status).toBe(200);
    await log.close();

    const reactor = defineReactor({
      name: 'notify',
      react: ({ event }) => (event.type === 'sign-request-sent' ? [{ type: 'mail' }] : []),
      execute: async (_effect, ctx) => {
        if (ctx.attempt === 1) throw new Error('mail server down');
      },
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 },
    });
    const ran = await createFileReactorRunner({
      logPath: path,
      reactors: [reactor],
      drain: true,
      tracing,
    }).run();
    expect(ran.isOk()).toBe(true);
    await flush();

    const { traceId, spanId: rootId } = deliveryTrace('d-42');
    const trace = spans().filter((span) => span.spanContext().traceId === traceId);
    const delivery = only(trace, 'signfold.delivery');
    expect(delivery.kind).toBe(SpanKind.SERVER);
    expect(delivery.parentSpanContext?.spanId).toBe(rootId);
    expect(delivery.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'signfold.delivery.id': 'd-42',
      'signfold.log.position': 2,
      'signfold.sign_request.id': 42,
      'signfold.outcome': 'stored',
    });

    const append = only(trace, 'signfold.append');
    expect(append.kind).toBe(SpanKind.PRODUCER);
    expect(append.parentSpanContext?.spanId).toBe(delivery.spanContext().spanId);
    expect(append.attributes).toMatchObject({
      'signfold.delivery.id': 'd-42',
      'signfold.log.position': 2,
      'signfold.sign_request.id': 42,
      'signfold.outcome': 'appended',
    });

    // Another process's work (the runner's), in the same trace through the delivery id alone.
    const project = only(trace, 'signfold.project');
    expect(project.kind).toBe(SpanKind.CONSUMER);
    expect(project.parentSpanContext?.spanId).toBe(rootId);
    expect(project.attributes).toMatchObject({
      'signfold.delivery.id': 'd-42',
      'signfold.log.position': 2,
      'signfold.sign_request.id': 42,
      'signfold.event.type': 'sign-request-sent',
      'signfold.outcome': 'applied',
    });

    const tries = named(trace, 'signfold.effect.attempt');
    expect(tries.map((span) => span.attributes['signfold.effect.attempt'])).toEqual([1, 2]);
    expect(tries.map((span) => span.attributes['signfold.outcome'])).toEqual([
      'failed',
      'succeeded',
    ]);
    for (const span of tries) {
      expect(span.parentSpanContext?.spanId).toBe(rootId);
      expect(span.attributes).toMatchObject({
        'signfold.delivery.id': 'd-42',
        'signfold.log.position': 2,
        'signfold.sign_request.id': 42,
        'signfold.reactor': 'notify',
      });
    }
    expect(tries[0]?.status).toMatchObject({
      code: SpanStatusCode.ERROR,
      message: 'mail server down',
    });

    // The other delivery has a trace of its own: nothing of it leaks into this one.
    expect(trace).toHaveLength(5);
    expect(trace.every((span) => span.attributes['signfold.delivery.id'] === 'd-42')).toBe(true);
    const other = spans().filter((span) => span.attributes['signfold.delivery.id'] === 'd-other');
    expect(other).toHaveLength(5);
    expect(new Set(other.map((span) => span.spanContext().traceId))).toEqual(
      new Set([deliveryTrace('d-other').traceId]),
    );
  });

  it('a redelivery joins the trace of its first delivery, as a duplicate', async () => {
    const { tracing, spans, flush } = collectSpans();
    const dir = await tempDir();
    const log = (await openFileEventLog(join(dir, 'events.ndjson')))._unsafeUnwrap();
    const handler = createWebhookHandler({ log, secrets: [SECRET], tracing });
    await handler(signedDelivery(sentEvent(42), 'd-again'));
    const again = await handler(signedDelivery(sentEvent(42), 'd-again'));
    expect(again.status).toBe(200);
    await log.close();
    await flush();
    const deliveries = named(spans(), 'signfold.delivery');
    expect(deliveries.map((span) => span.attributes['signfold.outcome'])).toEqual([
      'stored',
      'duplicate',
    ]);
    expect(new Set(deliveries.map((span) => span.spanContext().traceId))).toEqual(
      new Set([deliveryTrace('d-again').traceId]),
    );
    expect(named(spans(), 'signfold.append')[1]?.attributes).toMatchObject({
      'signfold.outcome': 'duplicate',
      'signfold.log.position': 1,
    });
  });
});
