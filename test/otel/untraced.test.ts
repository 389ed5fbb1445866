/**
 * What tracing costs when it is off: the default port is `NO_TRACING`,
 * whose spans are one shared frozen object, and a port that says it is not
 * enabled is never even asked for a span (nor are attributes gathered for
 * one) by the handler, the projector or the file reactor runner.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defineReactor } from '../../src/core/reactors/define-reactor.js';
import { createProjector } from '../../src/engine/projector.js';
import { NO_TRACING, type Tracing } from '../../src/engine/tracing.js';
import { openFileEventLog } from '../../src/store/file-event-log.js';
import { readFileEventLog } from '../../src/store/file-record-stream.js';
import { createFileReactorRunner } from '../../src/store/reactors/file-reactor-runner.js';
import { createWebhookHandler } from '../../src/webhooks/webhook-handler.js';
import { removeTempDirs, tempDir } from '../reliability/fixtures/reliability-helpers.js';
import { SECRET, sentEvent, signedDelivery } from './trace-spans.js';

afterAll(removeTempDirs);

describe('tracing turned off', () => {
  it('NO_TRACING hands out one shared span that does nothing', () => {
    const a = NO_TRACING.startSpan('x', { deliveryId: 'd', attributes: { n: 1 } });
    const b = NO_TRACING.startSpan('y');
    expect(a).toBe(b);
    expect(Object.isFrozen(NO_TRACING)).toBe(true);
    expect(NO_TRACING.enabled).toBe(false);
  });

  it('a port that is not enabled is never asked for a span', async () => {
    let asked = 0;
    const off: Tracing = {
      enabled: false,
      startSpan: () => {
        asked += 1;
        return NO_TRACING.startSpan('');
      },
    };
    const dir = await tempDir();
    const path = join(dir, 'events.ndjson');
    const log = (await openFileEventLog(path))._unsafeUnwrap();
    const projector = createProjector({ tracing: off });
    const handler = createWebhookHandler({ log, secrets: [SECRET], tracing: off, projector });
    expect((await handler(signedDelivery(sentEvent(1), 'off-1'))).status).toBe(200);
    expect((await handler(signedDelivery('not json', 'off-2'))).status).toBe(400);
    await log.close();
    const replayed = createProjector({ tracing: off });
    (await replayed.replay({ read: (o) => readFileEventLog(path, o) }))._unsafeUnwrap();
    const reactor = defineReactor({
      name: 'off',
      react: () => [{ type: 'nothing' }],
      execute: async () => undefined,
    });
    const ran = await createFileReactorRunner({
      logPath: path,
      reactors: [reactor],
      drain: true,
      tracing: off,
    }).run();
    expect(ran._unsafeUnwrap().succeeded).toBe(1);
    expect(asked).toBe(0);
  });
});
