/**
 * One delivery's trace on PostgreSQL, against a throwaway server and the real
 * OpenTelemetry SDK: received and appended by the webhook handler on the
 * PostgreSQL log, projected by a partition worker's batch (with reactors, so
 * the batch enqueues the effect), and the effect attempted by the executor
 * of `pg work --reactors`, failing once. Every span of the delivery is in the
 * trace its delivery id names; the record's projection span links to the
 * batch's span.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineReactor } from '../../src/core/reactors/define-reactor.js';
import { deliveryTrace } from '../../src/otel/delivery-trace.js';
import { migrate } from '../../src/postgres/migrate.js';
import { openPostgresEventLog } from '../../src/postgres/postgres-event-log.js';
import { createProjectionWorker } from '../../src/postgres/projection-worker.js';
import { PgEffectExecutor } from '../../src/postgres/reactors/pg-effect-executor.js';
import { runEffects } from '../../src/postgres/reactors/run-effects.js';
import { schemaName } from '../../src/postgres/schema-name.js';
import { createWebhookHandler } from '../../src/webhooks/webhook-handler.js';
import { type PostgresServer, postgresDatabase } from '../support/postgres-server.js';
import { collectSpans, named, only, SECRET, sentEvent, signedDelivery } from './trace-spans.js';

let server: PostgresServer;
beforeAll(async () => {
  server = await postgresDatabase();
});
afterAll(async () => {
  await server?.stop();
});

describe('a delivery traced on PostgreSQL', () => {
  it('delivery, append, the batch that projects it, and each effect attempt, in one trace', async () => {
    const { tracing, spans, flush } = collectSpans();
    const url = await server.createDatabase('otel_trace');
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    try {
      const schema = schemaName('signfold')._unsafeUnwrap();
      (await migrate(pool, { schema, partitions: 2 }))._unsafeUnwrap();
      const log = (await openPostgresEventLog(pool))._unsafeUnwrap();
      const handler = createWebhookHandler({ log, secrets: [SECRET], tracing });
      expect((await handler(signedDelivery(sentEvent(41), 'pg-other'))).status).toBe(200);
      expect((await handler(signedDelivery(sentEvent(42), 'pg-42'))).status).toBe(200);
      await log.close();

      const reactor = defineReactor({
        name: 'notify',
        react: ({ event }) => (event.type === 'sign-request-sent' ? [{ type: 'mail' }] : []),
        execute: async (_effect, ctx) => {
          if (ctx.attempt === 1) throw new Error('mail server down');
        },
        retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 },
      });
      const worker = (
        await createProjectionWorker(pool, { reactors: [reactor], tracing, leaseMs: 5000 })
      )._unsafeUnwrap();
      (await worker.drain())._unsafeUnwrap();
      const executor = new PgEffectExecutor(pool, {
        schema,
        workerId: worker.id,
        reactors: [reactor],
        leaseMs: 5000,
        tracing,
      });
      const ran = await runEffects(pool, executor, {
        schema,
        signal: new AbortController().signal,
        drain: true,
        pollMs: 50,
        renewMs: 1000,
        graceMs: 1000,
        wake: { current: () => undefined },
      });
      expect(ran._unsafeUnwrap()).toMatchObject({ succeeded: 2, failed: 2 });
      (await worker.release())._unsafeUnwrap();
      await flush();

      const { traceId, spanId: rootId } = deliveryTrace('pg-42');
      const trace = spans().filter((span) => span.spanContext().traceId === traceId);
      const delivery = only(trace, 'signfold.delivery');
      expect(delivery.kind).toBe(SpanKind.SERVER);
      expect(delivery.attributes).toMatchObject({
        'http.response.status_code': 200,
        'signfold.delivery.id': 'pg-42',
        'signfold.log.position': 2,
        'signfold.sign_request.id': 42,
        'signfold.outcome': 'stored',
      });
      const append = only(trace, 'signfold.append');
      expect(append.parentSpanContext?.spanId).toBe(delivery.spanContext().spanId);
      expect(append.attributes).toMatchObject({
        'signfold.log.position': 2,
        'signfold.outcome': 'appended',
      });

      const project = only(trace, 'signfold.project');
      expect(project.parentSpanContext?.spanId).toBe(rootId);
      expect(project.attributes).toMatchObject({
        'signfold.delivery.id': 'pg-42',
        'signfold.log.position': 2,
        'signfold.sign_request.id': 42,
        'signfold.outcome': 'applied',
      });
      // The batch is the worker's own work, in a trace of its own, linked from the record's span.
      const batches = named(spans(), 'signfold.project.batch');
      const linked = batches.filter((batch) =>
        project.links.some((link) => link.context.spanId === batch.spanContext().spanId),
      );
      expect(linked).toHaveLength(1);
      const batch = linked[0];
      expect(batch?.spanContext().traceId).not.toBe(traceId);
      expect(batch?.attributes).toMatchObject({ 'signfold.outcome': 'committed' });
      const [from, to] = [
        Number(batch?.attributes['signfold.batch.from']),
        Number(batch?.attributes['signfold.batch.to']),
      ];
      expect(from <= 2 && 2 <= to).toBe(true);
      expect(typeof batch?.attributes['signfold.partition']).toBe('number');

      const tries = named(trace, 'signfold.effect.attempt');
      expect(tries.map((span) => span.attributes['signfold.effect.attempt'])).toEqual([1, 2]);
      expect(tries.map((span) => span.attributes['signfold.outcome'])).toEqual([
        'failed',
        'succeeded',
      ]);
      for (const span of tries) {
        expect(span.parentSpanContext?.spanId).toBe(rootId);
        expect(span.attributes).toMatchObject({
          'signfold.delivery.id': 'pg-42',
          'signfold.log.position': 2,
          'signfold.sign_request.id': 42,
          'signfold.reactor': 'notify',
        });
      }
      expect(tries[0]?.status.code).toBe(SpanStatusCode.ERROR);
      expect(trace).toHaveLength(5);
    } finally {
      await pool.end();
    }
  });
});
