/**
 * The webhook door refuses a body shaped as an observation record: it would
 * speak for the service's API, and only `reconcile` appends one. Bodies that
 * merely look like one (a `type` member, another `record` value, an array)
 * are events, stored as before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { observationRecord } from '../../src/core/observations/observation-record.js';
import { decodeSignRequest } from '../../src/index.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { signWebhookBody } from '../../src/webhooks/sign-payload.js';
import { createWebhookHandler } from '../../src/webhooks/webhook-handler.js';

const SECRET = 'topsecret';

const setup = () => {
  const log = createMemoryEventLog();
  const handler = createWebhookHandler({ log, secrets: [SECRET] });
  const post = (text: string) => {
    const body = new TextEncoder().encode(text);
    return handler({
      method: 'POST',
      headers: { 'x-signature': signWebhookBody(body, SECRET) },
      body,
    });
  };
  const count = async () => {
    let n = 0;
    for await (const batch of log.read()) n += batch.length;
    return n;
  };
  return { post, count };
};

const RECORD = observationRecord(
  decodeSignRequest({
    id: 1000,
    name: 'NDA',
    status: 'completed',
    formType: 'Form',
    savedTime: '2026-11-20 10:00:00',
  })._unsafeUnwrap(),
);

describe('the webhook door and observation records', () => {
  it('answers 400 to a signed observation record and stores nothing, however its members are mutated', async () => {
    const { post, count } = setup();
    const mutations = fc.record(
      {
        signRequestId: fc.oneof(fc.integer(), fc.string()),
        fetchedAt: fc.string(),
        extra: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(mutations, async (changes) => {
        const answer = await post(JSON.stringify({ ...RECORD, ...changes }));
        expect(answer.status).toBe(400);
        expect(JSON.parse(answer.body).error).toBe(
          'body is an observation record: those are appended by reconcile, never delivered',
        );
      }),
      { numRuns: 50 },
    );
    expect(await count()).toBe(0);
  });

  it('stores what only resembles one: a type member makes it an event, so does another record value', async () => {
    const { post, count } = setup();
    for (const body of [
      { ...RECORD, type: 'sign-request-completed' },
      { ...RECORD, record: 'Observation' },
      [RECORD],
    ]) {
      expect((await post(JSON.stringify(body))).status).toBe(200);
    }
    expect(await count()).toBe(3);
  });
});
