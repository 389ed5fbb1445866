/**
 * Secrets bound to companies: a delivery verified only by secrets bound to other companies is
 * answered 403, not stored, and reported as `forbidden`; a body whose companyId cannot be read
 * (none, a string, an array of events) is refused under a bound secret; an unbound secret keeps
 * allowing any company. And the law, by fast-check: with random company ids and bindings, a
 * bound secret never stores an event of a company it is not bound to.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../src/engine/event-log.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { createWebhookHandler } from '../../src/webhooks/webhook-handler.js';
import type { BoundSecret, WebhookOutcome } from '../../src/webhooks/webhook-types.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';

const setup = (secrets: readonly (string | BoundSecret)[]) => {
  const log = createMemoryEventLog();
  const outcomes: WebhookOutcome[] = [];
  const handler = createWebhookHandler({ log, secrets, onOutcome: (o) => outcomes.push(o) });
  const stored = async (): Promise<LogRecord[]> => {
    const all: LogRecord[] = [];
    for await (const batch of log.read()) all.push(...batch);
    return all;
  };
  /** Posts `body` signed (hex HMAC-SHA256, the default scheme) with `secret`. */
  const post = (body: string, secret: string, id?: string) =>
    handler({
      method: 'POST',
      headers: {
        'x-signature': createHmac('sha256', secret).update(body).digest('hex'),
        ...(id === undefined ? {} : { 'x-delivery-id': id }),
      },
      body: Buffer.from(body),
    });
  return { post, outcomes, stored };
};

const event = (companyId: unknown) =>
  JSON.stringify({
    type: 'template-deleted',
    companyId,
    templateId: 7,
    templateName: 'NDA',
    ownerId: 2,
    ownerName: 'Ann',
  });

describe('a secret bound to companies', () => {
  it('stores its companies events, answers 403 for another company, stores nothing then', async () => {
    const { post, outcomes, stored } = setup([{ secret: 'acme', companies: [1, 2] }]);
    expect((await post(event(2), 'acme', 'd-1')).status).toBe(200);
    const refused = await post(event(3), 'acme', 'd-2');
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toEqual({ error: 'secret not allowed for company 3' });
    expect(outcomes.at(-1)).toEqual({
      kind: 'forbidden',
      status: 403,
      reason: 'secret not allowed for company 3',
      deliveryId: 'd-2',
    });
    expect((await stored()).map((r) => (r.kind === 'entry' ? r.deliveryId : r.kind))).toEqual([
      'd-1',
    ]);
  });

  it('refuses a body whose companyId cannot be read, and an envelope of several events', async () => {
    const { post, stored } = setup([{ secret: 'acme', companies: [1] }]);
    const unreadable = [
      JSON.stringify({ type: 'template-deleted', templateId: 7 }),
      event('1'),
      event(1.5),
      event(null),
      '1e400',
      `[${event(1)},${event(1)}]`,
      '{"companyId":1e400}',
      '{"__proto__":{"companyId":1}}',
    ];
    for (const body of unreadable) {
      const answer = await post(body, 'acme');
      expect(answer.status, body).toBe(403);
      expect(JSON.parse(answer.body).error).toMatch(/the body names no companyId/);
    }
    expect(await stored()).toEqual([]);
  });

  it('an unbound secret allows any company; a delivery signed by both kinds is allowed', async () => {
    const { post, stored } = setup([{ secret: 'acme', companies: [1] }, 'platform']);
    expect((await post(event(9), 'platform')).status).toBe(200);
    expect((await post('[]', 'platform')).status).toBe(200);
    expect((await post(event(9), 'acme')).status).toBe(403);
    expect(await stored()).toHaveLength(2);
  });

  it('a binding must list company ids (a programmer error, thrown when the handler is made)', () => {
    const log = createMemoryEventLog();
    for (const companies of [[], ['1'], [0.5], undefined]) {
      expect(() =>
        createWebhookHandler({
          log,
          secrets: [{ secret: 's', companies } as unknown as BoundSecret],
        }),
      ).toThrow(/secrets\[0\]\.companies must list at least one company id/);
    }
  });

  it('law: a bound secret never stores an event of a company it is not bound to', async () => {
    const bindingArb = fc.record({
      secret: fc.string({ minLength: 1, maxLength: 12 }),
      companies: fc.option(
        fc.uniqueArray(fc.integer({ min: -3, max: 8 }), { minLength: 1, maxLength: 4 }),
        { nil: undefined },
      ),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(bindingArb, { minLength: 1, maxLength: 4, selector: (b) => b.secret }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: -3, max: 8 })), {
          minLength: 1,
          maxLength: 8,
        }),
        async (bindings, deliveries) => {
          const secrets = bindings.map((b) =>
            b.companies === undefined ? b.secret : { secret: b.secret, companies: b.companies },
          );
          const { post, stored } = setup(secrets);
          for (const [pick, company] of deliveries) {
            const binding = bindings[pick % bindings.length];
            if (binding === undefined) continue;
            const answer = await post(event(company), binding.secret);
            // Allowed when a secret that verifies it (its own, or another with the same key) allows it.
            const verifying = bindings.filter((b) => b.secret === binding.secret);
            const allowed = verifying.some(
              (b) => b.companies === undefined || b.companies.includes(company),
            );
            expect(answer.status).toBe(allowed ? 200 : 403);
          }
          // Every stored event's company is one its signer may deliver.
          const unbound = bindings.some((b) => b.companies === undefined);
          const allowedCompanies = new Set(bindings.flatMap((b) => b.companies ?? []));
          for (const record of await stored()) {
            const { companyId } = (record.kind === 'entry' ? record.event : {}) as {
              companyId: number;
            };
            expect(unbound || allowedCompanies.has(companyId)).toBe(true);
          }
        },
      ),
      { numRuns: count(100, 1000) },
    );
  });
});
