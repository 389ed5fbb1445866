/**
 * The handler without HTTP: the order of its checks, every answer and the
 * outcome reported for it, the delivery-id rules (absent, required, several,
 * unstorable), storage failures (503 + Retry-After, nothing stored), log
 * refusals (413/400), live application in append order, and invalid options.
 */
import fc from 'fast-check';
import { err } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import type { EventLog, LogRecord } from '../../src/engine/event-log.js';
import { createProjector } from '../../src/engine/projector.js';
import type { PostgresError } from '../../src/postgres/postgres-error.js';
import type { LogError } from '../../src/store/log-error.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { signWebhookBody } from '../../src/webhooks/sign-payload.js';
import { createWebhookHandler } from '../../src/webhooks/webhook-handler.js';
import type {
  WebhookHandlerOptions,
  WebhookOutcome,
  WebhookRequest,
} from '../../src/webhooks/webhook-types.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { eventually } from '../support/eventually.js';

const SECRET = 'topsecret';
const encode = (text: string) => new TextEncoder().encode(text);
const TEMPLATE =
  '{"type":"template-activated","companyId":1,"templateId":1001,"templateName":"NDA","ownerId":10,"ownerName":"Olive"}';

/** A signed POST of `text`, with extra headers. */
const signed = (text: string, headers: Record<string, string> = {}): WebhookRequest => {
  const body = encode(text);
  return {
    method: 'POST',
    headers: { 'x-signature': signWebhookBody(body, SECRET), ...headers },
    body,
  };
};

const setup = (options: Partial<WebhookHandlerOptions> = {}) => {
  const log = createMemoryEventLog();
  const outcomes: WebhookOutcome[] = [];
  const handler = createWebhookHandler({
    log,
    secrets: [SECRET],
    onOutcome: (outcome) => outcomes.push(outcome),
    ...options,
  });
  const stored = async (): Promise<LogRecord[]> => {
    const all: LogRecord[] = [];
    for await (const batch of log.read()) all.push(...batch);
    return all;
  };
  return { log, handler, outcomes, stored };
};

const json = (body: string) => JSON.parse(body) as Record<string, unknown>;

describe('answers', () => {
  it('stores a signed JSON body (200 with its position), then answers a redelivery 200 duplicate', async () => {
    const { handler, outcomes, stored } = setup();
    const first = await handler(signed(TEMPLATE, { 'x-delivery-id': 'd-1' }));
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('application/json');
    expect(json(first.body)).toEqual({ position: 1, duplicate: false });
    const again = await handler(signed(TEMPLATE, { 'X-Delivery-Id': 'd-1' }));
    expect(again.status).toBe(200);
    expect(json(again.body)).toEqual({ position: 1, duplicate: true });
    expect(outcomes.map((o) => o.kind)).toEqual(['stored', 'duplicate']);
    expect(outcomes[1]).toMatchObject({ deliveryId: 'd-1', position: 1 });
    expect(first.outcome).toBe(outcomes[0]);
    const records = await stored();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ deliveryId: 'd-1', event: JSON.parse(TEMPLATE) });
  });

  it.each([
    ['GET', 405],
    ['PUT', 405],
    ['HEAD', 405],
  ])('%s gets %i with Allow: POST', async (method, status) => {
    const { handler, stored } = setup();
    const answer = await handler({ ...signed(TEMPLATE), method });
    expect(answer.status).toBe(status);
    expect(answer.headers.allow).toBe('POST');
    expect(await stored()).toEqual([]);
  });

  it('checks size before the signature, the signature before the id and the body', async () => {
    const { handler, outcomes, stored } = setup({ maxBodyBytes: 64 });
    const big = `{"pad":"${'x'.repeat(100)}"}`;
    expect((await handler(signed(big))).status).toBe(413);
    // An unsigned body that is not JSON, with an id no log stores: 401 first.
    const unsigned = {
      method: 'POST',
      headers: { 'x-delivery-id': 'a\u0000b' },
      body: encode('{'),
    };
    expect((await handler(unsigned)).status).toBe(401);
    expect((await handler(signed('{', { 'x-delivery-id': 'a\u0000b' }))).status).toBe(400);
    expect(outcomes.map((o) => (o.kind === 'rejected' ? o.status : o.kind))).toEqual([
      413, 401, 400,
    ]);
    expect(await stored()).toEqual([]);
  });

  it('413 for a body a caller stopped reading (overLimit), whatever the bytes it kept', async () => {
    const { handler, stored } = setup();
    const answer = await handler({ ...signed(TEMPLATE), overLimit: 10 });
    expect(answer.status).toBe(413);
    expect(json(answer.body).error).toBe('body larger than 10 bytes');
    expect(await stored()).toEqual([]);
  });

  it('400 for a body that is not UTF-8 or not JSON (byte order mark included); any JSON is stored', async () => {
    const { handler, stored } = setup();
    const notUtf8 = Uint8Array.from([0x7b, 0xff, 0x7d]);
    const answer = await handler({
      method: 'POST',
      headers: { 'x-signature': signWebhookBody(notUtf8, SECRET) },
      body: notUtf8,
    });
    expect([answer.status, json(answer.body).error]).toEqual([400, 'body is not UTF-8']);
    for (const body of ['{"type":', `\uFEFF${TEMPLATE}`, '\u00A0', '']) {
      const refused = await handler(signed(body));
      expect(refused.status).toBe(400);
      expect(json(refused.body).error).toMatch(/^body is not JSON: /);
    }
    // Not a valid event, but JSON: stored for the projector to quarantine.
    for (const body of ['{"type":"sign-request-snet"}', '42', 'null', '[]']) {
      expect((await handler(signed(body))).status).toBe(200);
    }
    expect((await stored()).map((r) => r.kind)).toEqual(['entry', 'entry', 'entry', 'entry']);
  });

  it('reasons quoting the body carry no control or bidi character (they may reach a terminal)', async () => {
    const { handler, outcomes } = setup();
    const answer = await handler(signed('\u202e\u001b[2J{'));
    expect(answer.status).toBe(400);
    const reason = String(json(answer.body).error);
    expect(reason).toMatch(/^body is not JSON: /);
    expect(reason).toContain('\\u202e');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the point of the check
    expect(reason).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(outcomes[0]).toMatchObject({ kind: 'rejected', reason });
  });

  it('401 when no secret is configured, unless insecureNoSignature', async () => {
    const locked = setup({ secrets: [] });
    expect((await locked.handler(signed(TEMPLATE))).status).toBe(401);
    const open = setup({ secrets: [], insecureNoSignature: true });
    expect(
      (await open.handler({ method: 'POST', headers: {}, body: encode(TEMPLATE) })).status,
    ).toBe(200);
  });

  it('never throws on a request that is not even the declared shape', async () => {
    const { handler } = setup();
    for (const request of [
      {},
      { method: 'POST' },
      { method: 'POST', headers: {}, body: 'text' },
      null,
    ]) {
      const answer = await handler(request as unknown as WebhookRequest);
      expect([400, 401]).toContain(answer.status);
    }
  });
});

describe('the delivery id', () => {
  it('without one, a delivery is stored each time (no deduplication), with no deliveryId', async () => {
    const { handler, stored } = setup();
    expect(json((await handler(signed(TEMPLATE))).body)).toEqual({ position: 1, duplicate: false });
    expect(json((await handler(signed(TEMPLATE, { 'x-delivery-id': '  ' }))).body)).toEqual({
      position: 2,
      duplicate: false,
    });
    expect((await stored()).map((r) => (r.kind === 'entry' ? r.deliveryId : r.kind))).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('requireDeliveryId: true refuses a delivery without one (400), stores nothing', async () => {
    const { handler, stored } = setup({ requireDeliveryId: true });
    const answer = await handler(signed(TEMPLATE));
    expect([answer.status, json(answer.body).error]).toEqual([
      400,
      'missing delivery id header x-delivery-id',
    ]);
    expect(await stored()).toEqual([]);
    expect((await handler(signed(TEMPLATE, { 'x-delivery-id': 'd' }))).status).toBe(200);
  });

  it('is stored unchanged (spaces, unicode, another header name)', async () => {
    const { handler, stored } = setup({ deliveryHeader: 'X-DocuSign-Delivery' });
    const id = ' evt_ü é\t42 ';
    expect((await handler(signed(TEMPLATE, { 'x-docusign-delivery': id }))).status).toBe(200);
    expect((await stored())[0]).toMatchObject({ deliveryId: id });
  });

  it('any id is stored unchanged or refused with 400, never anything else (property)', async () => {
    const { handler, stored } = setup();
    const accepted: string[] = [];
    const statuses = new Set<number>();
    // Any code points, and strings built from the troublesome ones (NUL, halves of a pair, spaces).
    const tricky = fc.constantFrom(
      'a',
      ' ',
      '\t',
      '\u0000',
      '\ud800',
      '\udc00',
      '\ud83d\ude00',
      'é',
    );
    const ids = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
      fc.string({ unit: tricky, minLength: 1, maxLength: 8 }),
    );
    await fc.assert(
      fc.asyncProperty(ids, async (id) => {
        const answer = await handler(signed(TEMPLATE, { 'x-delivery-id': id }));
        const wellFormed = !/[\ud800-\udfff]/u.test(id);
        const storable = id.trim() !== '' && !id.includes('\u0000') && wellFormed;
        if (!storable && id.trim() !== '') expect(answer.status).toBe(400);
        else expect(answer.status).toBe(200);
        if (storable && json(answer.body).duplicate === false) accepted.push(id);
        statuses.add(answer.status);
      }),
      { numRuns: count(200, 3000) },
    );
    expect([...statuses].sort()).toEqual([200, 400]);
    const kept = (await stored()).map((r) => (r.kind === 'entry' ? r.deliveryId : r.kind));
    expect(kept.filter((id) => id !== undefined)).toEqual(accepted);
  });

  it('refuses ids no log can store the same everywhere, and several ids, with 400 and a reason', async () => {
    const { handler, stored } = setup();
    const cases: [Record<string, string | string[]>, RegExp][] = [
      [{ 'x-delivery-id': 'a\u0000b' }, /contains NUL/],
      [{ 'x-delivery-id': 'a\ud800b' }, /unpaired UTF-16 surrogate/],
      [{ 'x-delivery-id': ['a', 'b'] }, /several x-delivery-id headers/],
    ];
    for (const [headers, reason] of cases) {
      const body = encode(TEMPLATE);
      const answer = await handler({
        method: 'POST',
        headers: { ...headers, 'x-signature': signWebhookBody(body, SECRET) },
        body,
      });
      expect(answer.status).toBe(400);
      expect(json(answer.body).error).toMatch(reason);
    }
    expect(await stored()).toEqual([]);
  });
});

/** A log whose append fails the way `error` says (or throws). */
type AnyLogError = LogError | Extract<PostgresError, { kind: 'database' }>;

const failingLog = (error: AnyLogError | Error): Pick<EventLog, 'append'> => ({
  append: async () => {
    if (error instanceof Error) throw error;
    return err(error);
  },
});

describe('storage failures', () => {
  it.each<AnyLogError>([
    {
      kind: 'io',
      code: 'ENOSPC',
      path: 'events.ndjson',
      message: 'appending to events.ndjson: no space left',
    },
    { kind: 'database', code: '57P01', message: 'terminating connection' },
    { kind: 'closed', message: 'append: the event log is closed' },
    { kind: 'lock-lost', path: 'e', lockPath: 'e.lock', message: 'lock lost' },
  ])('$kind gets 503 with Retry-After', async (error) => {
    const outcomes: WebhookOutcome[] = [];
    const handler = createWebhookHandler({
      log: failingLog(error),
      secrets: [SECRET],
      retryAfterSeconds: 7,
      onOutcome: (o) => outcomes.push(o),
    });
    const answer = await handler(signed(TEMPLATE, { 'x-delivery-id': 'd' }));
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('7');
    expect(json(answer.body).error).toBe(error.message);
    expect(outcomes).toEqual([
      { kind: 'unavailable', status: 503, reason: error.message, deliveryId: 'd' },
    ]);
  });

  it('a log that throws or rejects gets 503 too, never a 500 or a throw', async () => {
    const handler = createWebhookHandler({
      log: failingLog(new Error('socket hang up')),
      secrets: [SECRET],
    });
    const answer = await handler(signed(TEMPLATE));
    expect([answer.status, json(answer.body).error]).toEqual([
      503,
      'append failed: socket hang up',
    ]);
  });

  it('a closed memory log: 503, and nothing stored', async () => {
    const { log, handler, stored } = setup();
    await log.close();
    expect((await handler(signed(TEMPLATE))).status).toBe(503);
    expect(log.lastPosition).toBe(0);
    await expect(stored()).rejects.toThrow(/closed/);
  });

  it("the log's own refusals: too large gets 413, not serializable 400", async () => {
    const small = createMemoryEventLog({ maxEventBytes: 50 });
    const handler = createWebhookHandler({ log: small, secrets: [SECRET] });
    const answer = await handler(signed(TEMPLATE));
    expect(answer.status).toBe(413);
    expect(json(answer.body).error).toMatch(/over the limit of 50/);
    const refusing = createWebhookHandler({
      log: failingLog({ kind: 'not-serializable', message: 'no' }),
      secrets: [SECRET],
    });
    expect((await refusing(signed(TEMPLATE))).status).toBe(400);
  });

  it('an onOutcome that throws changes nothing', async () => {
    const { handler } = setup({
      onOutcome: () => {
        throw new Error('metrics down');
      },
    });
    expect((await handler(signed(TEMPLATE))).status).toBe(200);
  });
});

describe('live application', () => {
  it('applies every stored event in append order, even when appends resolve out of order', async () => {
    const memory = createMemoryEventLog();
    // Resolves appends in reverse order of their calls: handlers resume out of order.
    const pending: (() => void)[] = [];
    const slow: Pick<EventLog, 'append'> = {
      append: (event, options) =>
        new Promise((resolve) => {
          const stored = memory.append(event, options);
          pending.unshift(() => void stored.then(resolve));
        }),
    };
    const projector = createProjector({ policy: 'skip' });
    const handler = createWebhookHandler({ log: slow, secrets: [SECRET], projector });
    const viewed = (i: number) =>
      `{"type":"participant-viewed","companyId":1,"signRequestId":7,"signRequestName":"NDA","senderId":3,"senderName":"S","ownerId":3,"ownerName":"S","templateId":1001,"templateName":"NDA","participantId":${i},"participantName":"P","roleId":1,"roleName":"Signer"}`;
    const answers = Promise.all([1, 2, 3, 4].map((i) => handler(signed(viewed(i)))));
    await eventually(() => pending.length === 4, 'all four appends to wait');
    for (const release of pending) release();
    const bodies = (await answers).map((a) => json(a.body));
    expect(bodies.map((b) => b.position)).toEqual([1, 2, 3, 4]);
    expect(bodies.every((b) => typeof b.outcome === 'string')).toBe(true);
    expect(projector.checkpoint).toBe(4);
    expect(projector.stats().alreadyApplied).toBe(0);
  });

  it('a duplicate or a failed append is not applied and does not block later ones', async () => {
    const projector = createProjector({ policy: 'skip' });
    const { handler } = setup({ projector });
    expect(json((await handler(signed(TEMPLATE, { 'x-delivery-id': 'a' }))).body).outcome).toBe(
      'applied',
    );
    expect(json((await handler(signed(TEMPLATE, { 'x-delivery-id': 'a' }))).body)).toEqual({
      position: 1,
      duplicate: true,
    });
    expect(json((await handler(signed('{"type":"nope"}'))).body).outcome).toBe('quarantined');
    expect(projector.checkpoint).toBe(2);
  });
});

describe('invalid options throw when the handler is made', () => {
  const log = createMemoryEventLog();
  it.each([
    [{ log, secrets: [''] }, /secrets\[0\] is empty: an empty key is no secret/],
    [{ log, secrets: 'k' }, /non-empty strings/],
    [{ log, secrets: ['k'], insecureNoSignature: true }, /secrets must be empty/],
    [{ log: {}, secrets: [] }, /append/],
    [{ log, secrets: [], maxBodyBytes: 0 }, /maxBodyBytes/],
    [{ log, secrets: [], deliveryHeader: 'a b' }, /deliveryHeader/],
    [{ log, secrets: [], signature: { encoding: 'base32' } }, /encoding/],
  ])('%#', (options, message) => {
    expect(() => createWebhookHandler(options as unknown as WebhookHandlerOptions)).toThrow(
      message,
    );
  });
});
