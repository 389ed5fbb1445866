/**
 * One delivery's trace with the real OpenTelemetry SDK, on each store: received
 * and appended by the webhook handler, then projected and reacted to, its
 * effect failing once and succeeding the second time. Every span of the
 * delivery is in the trace its delivery id names.
 *
 * On the file engine, the log is a real file log and the file reactor runner
 * projects and reacts (as `react` or `serve --reactors` run it). On
 * PostgreSQL (a database of this file's own), a partition worker's batch
 * projects (with reactors, so the batch enqueues the effect) and the executor
 * of `pg work --reactors` attempts the effect; the record's projection span
 * links to the batch's span.
 */
import { join } from 'node:path';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineReactor } from '../../src/core/reactors/define-reactor.js';
import type { Reactor } from '../../src/core/reactors/reactor-types.js';
import type { EventLog } from '../../src/engine/event-log.js';
import type { Tracing } from '../../src/engine/tracing.js';
import { deliveryTrace } from '../../src/otel/delivery-trace.js';
import { openPostgresEventLog } from '../../src/postgres/log/postgres-event-log.js';
import { PgEffectExecutor } from '../../src/postgres/reactors/pg-effect-executor.js';
import { runEffects } from '../../src/postgres/reactors/run-effects.js';
import { migrate } from '../../src/postgres/schema/migrate.js';
import { schemaName } from '../../src/postgres/schema-name.js';
import { createProjectionWorker } from '../../src/postgres/worker/projection-worker.js';
import { openFileEventLog } from '../../src/store/file-event-log.js';
import { createFileReactorRunner } from '../../src/store/reactors/file-reactor-runner.js';
import { createWebhookHandler } from '../../src/webhooks/webhook-handler.js';
import { removeTempDirs, tempDir } from '../reliability/fixtures/reliability-helpers.js';
import { type PostgresServer, postgresDatabase } from '../support/postgres-server.js';
import { collectSpans, named, only, SECRET, sentEvent, signedDelivery } from './trace-spans.js';

let server: PostgresServer;
beforeAll(async () => {
  server = await postgresDatabase();
});
afterAll(async () => {
  await server?.stop();
  await removeTempDirs();
});

/** A log of one store, and how that store projects it and runs its reactors. */
interface OpenedStore {
  readonly log: EventLog;
  /** Projects the log and runs `reactor`'s effects to the end (the log is closed). */
  readonly react: (reactor: Reactor, tracing: Tracing) => Promise<void>;
  readonly close: () => Promise<void>;
}

interface TracedStore {
  readonly store: string;
  /** The prefix of its delivery ids. */
  readonly prefix: string;
  /** An empty log in a place of its own named `name`. */
  readonly open: (name: string, tracing: Tracing) => Promise<OpenedStore>;
  /** What the store alone adds to the trace of `deliveryId`. */
  readonly checkOwnSpans: (spans: readonly ReadableSpan[], deliveryId: string) => void;
}

const fileStore: TracedStore = {
  store: 'the file engine',
  prefix: 'd',
  open: async () => {
    const path = join(await tempDir(), 'events.ndjson');
    const log = (await openFileEventLog(path))._unsafeUnwrap();
    return {
      log,
      react: async (reactor, tracing) => {
        const ran = await createFileReactorRunner({
          logPath: path,
          reactors: [reactor],
          drain: true,
          tracing,
        }).run();
        expect(ran.isOk()).toBe(true);
      },
      close: async () => undefined,
    };
  },
  checkOwnSpans: () => undefined,
};

const postgresStore: TracedStore = {
  store: 'PostgreSQL',
  prefix: 'pg',
  open: async (name, tracing) => {
    const url = await server.createDatabase(name);
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const schema = schemaName('signfold')._unsafeUnwrap();
    (await migrate(pool, { schema, partitions: 2 }))._unsafeUnwrap();
    const log = (await openPostgresEventLog(pool))._unsafeUnwrap();
    return {
      log,
      react: async (reactor) => {
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
      },
      close: () => pool.end(),
    };
  },
  // The batch is the worker's own work, in a trace of its own, linked from the record's span.
  checkOwnSpans: (spans, deliveryId) => {
    const { traceId } = deliveryTrace(deliveryId);
    const project = only(
      spans.filter((span) => span.spanContext().traceId === traceId),
      'signfold.project',
    );
    const batches = named(spans, 'signfold.project.batch');
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
  },
};

describe.each([fileStore, postgresStore])(
  'a delivery traced on $store',
  ({ prefix, open, checkOwnSpans }) => {
    it('delivery, append, projection and each effect attempt, in the trace of its delivery id', async () => {
      const { tracing, spans, flush } = collectSpans();
      const store = await open('otel_trace', tracing);
      try {
        const handler = createWebhookHandler({ log: store.log, secrets: [SECRET], tracing });
        // An unrelated delivery first, so the traced one is not at position 1.
        const first = await handler(signedDelivery(sentEvent(41), `${prefix}-other`));
        expect(first.status).toBe(200);
        const answer = await handler(signedDelivery(sentEvent(42), `${prefix}-42`));
        expect(answer.status).toBe(200);
        await store.log.close();

        const reactor = defineReactor({
          name: 'notify',
          react: ({ event }) => (event.type === 'sign-request-sent' ? [{ type: 'mail' }] : []),
          execute: async (_effect, ctx) => {
            if (ctx.attempt === 1) throw new Error('mail server down');
          },
          retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 },
        });
        await store.react(reactor, tracing);
        await flush();
      } finally {
        await store.close();
      }

      const deliveryId = `${prefix}-42`;
      const { traceId, spanId: rootId } = deliveryTrace(deliveryId);
      const trace = spans().filter((span) => span.spanContext().traceId === traceId);
      const delivery = only(trace, 'signfold.delivery');
      expect(delivery.kind).toBe(SpanKind.SERVER);
      expect(delivery.parentSpanContext?.spanId).toBe(rootId);
      expect(delivery.attributes).toMatchObject({
        'http.request.method': 'POST',
        'http.response.status_code': 200,
        'signfold.delivery.id': deliveryId,
        'signfold.log.position': 2,
        'signfold.sign_request.id': 42,
        'signfold.outcome': 'stored',
      });

      const append = only(trace, 'signfold.append');
      expect(append.kind).toBe(SpanKind.PRODUCER);
      expect(append.parentSpanContext?.spanId).toBe(delivery.spanContext().spanId);
      expect(append.attributes).toMatchObject({
        'signfold.delivery.id': deliveryId,
        'signfold.log.position': 2,
        'signfold.sign_request.id': 42,
        'signfold.outcome': 'appended',
      });

      // Another process's work (the runner's), in the same trace through the delivery id alone.
      const project = only(trace, 'signfold.project');
      expect(project.kind).toBe(SpanKind.CONSUMER);
      expect(project.parentSpanContext?.spanId).toBe(rootId);
      expect(project.attributes).toMatchObject({
        'signfold.delivery.id': deliveryId,
        'signfold.log.position': 2,
        'signfold.sign_request.id': 42,
        'signfold.event.type': 'sign-request-sent',
        'signfold.outcome': 'applied',
      });
      checkOwnSpans(spans(), deliveryId);

      const tries = named(trace, 'signfold.effect.attempt');
      expect(tries.map((span) => span.attributes['signfold.effect.attempt'])).toEqual([1, 2]);
      expect(tries.map((span) => span.attributes['signfold.outcome'])).toEqual([
        'failed',
        'succeeded',
      ]);
      for (const span of tries) {
        expect(span.parentSpanContext?.spanId).toBe(rootId);
        expect(span.attributes).toMatchObject({
          'signfold.delivery.id': deliveryId,
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
      expect(trace.every((span) => span.attributes['signfold.delivery.id'] === deliveryId)).toBe(
        true,
      );
      const other = spans().filter(
        (span) => span.attributes['signfold.delivery.id'] === `${prefix}-other`,
      );
      expect(other).toHaveLength(5);
      expect(new Set(other.map((span) => span.spanContext().traceId))).toEqual(
        new Set([deliveryTrace(`${prefix}-other`).traceId]),
      );
    });

    it('a redelivery joins the trace of its first delivery, as a duplicate', async () => {
      const { tracing, spans, flush } = collectSpans();
      const store = await open('otel_redelivery', tracing);
      try {
        const handler = createWebhookHandler({ log: store.log, secrets: [SECRET], tracing });
        await handler(signedDelivery(sentEvent(42), `${prefix}-again`));
        const again = await handler(signedDelivery(sentEvent(42), `${prefix}-again`));
        expect(again.status).toBe(200);
        await store.log.close();
        await flush();
      } finally {
        await store.close();
      }
      const deliveries = named(spans(), 'signfold.delivery');
      expect(deliveries.map((span) => span.attributes['signfold.outcome'])).toEqual([
        'stored',
        'duplicate',
      ]);
      expect(new Set(deliveries.map((span) => span.spanContext().traceId))).toEqual(
        new Set([deliveryTrace(`${prefix}-again`).traceId]),
      );
      expect(named(spans(), 'signfold.append')[1]?.attributes).toMatchObject({
        'signfold.outcome': 'duplicate',
        'signfold.log.position': 1,
      });
    });
  },
);
