/**
 * The standard-webhooks scheme against the real senders: `standardwebhooks` (the reference
 * library) and `svix` sign, signfold verifies. Rotation (two signatures in either order), a
 * tampered body, stale and future timestamps, a reused webhook-id (a duplicate), a wrong secret,
 * a secret without `whsec_`, Ed25519 (`v1a`, signed with node:crypto: neither library signs it)
 * with its key and a wrong one; then the laws, by fast-check: any set of secrets verifies what
 * each of them signed, and any change to the id, the timestamp or the body fails.
 */
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../src/engine/event-log.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { createWebhookHandler } from '../../src/webhooks/webhook-handler.js';
import type {
  BoundSecret,
  WebhookOutcome,
  WebhookRequest,
} from '../../src/webhooks/webhook-types.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const NOW_SECONDS = Math.floor(NOW.getTime() / 1000);
const secretOf = (bytes: Uint8Array) => `whsec_${Buffer.from(bytes).toString('base64')}`;
const SECRET = secretOf(Buffer.alloc(24, 7));
const OTHER = secretOf(Buffer.alloc(32, 9));
const TEMPLATE =
  '{"type":"template-activated","companyId":1,"templateId":1001,"templateName":"NDA","ownerId":10,"ownerName":"Olive"}';

const setup = (secrets: readonly (string | BoundSecret)[], toleranceSeconds?: number) => {
  const log = createMemoryEventLog();
  const outcomes: WebhookOutcome[] = [];
  const handler = createWebhookHandler({
    log,
    secrets,
    signature:
      toleranceSeconds === undefined
        ? 'standard-webhooks'
        : { scheme: 'standard-webhooks', toleranceSeconds },
    onOutcome: (outcome) => outcomes.push(outcome),
    now: () => NOW,
  });
  const stored = async (): Promise<LogRecord[]> => {
    const all: LogRecord[] = [];
    for await (const batch of log.read()) all.push(...batch);
    return all;
  };
  return { handler, outcomes, stored };
};

/** A delivery as the reference library signs it. */
const delivery = (
  secret: string,
  body: string,
  id = 'msg_1',
  at: Date = NOW,
): { request: WebhookRequest; signature: string } => {
  const signature = new Webhook(secret).sign(id, at, body);
  const headers = {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
  return { request: { method: 'POST', headers, body: Buffer.from(body) }, signature };
};

const withSignature = (request: WebhookRequest, signature: string): WebhookRequest => ({
  ...request,
  headers: { ...(request.headers as Record<string, string>), 'webhook-signature': signature },
});

const json = (text: string) => JSON.parse(text) as Record<string, unknown>;

describe('standardwebhooks signs, signfold verifies', () => {
  it('a single signature: stored, with webhook-id as the delivery id', async () => {
    const { handler, stored } = setup([SECRET]);
    const answer = await handler(delivery(SECRET, TEMPLATE, 'msg_2Lx').request);
    expect(answer.status).toBe(200);
    expect(json(answer.body)).toEqual({ position: 1, duplicate: false });
    const [record] = await stored();
    expect(record?.kind === 'entry' && [record.deliveryId, record.event]).toEqual([
      'msg_2Lx',
      JSON.parse(TEMPLATE),
    ]);
  });

  it('two signatures during a rotation, in both orders, whichever key the receiver holds', async () => {
    for (const held of [SECRET, OTHER]) {
      const { handler } = setup([held]);
      const oldSigned = delivery(SECRET, TEMPLATE, `rot-${held}`);
      const newSignature = delivery(OTHER, TEMPLATE, `rot-${held}`).signature;
      for (const header of [
        `${oldSigned.signature} ${newSignature}`,
        `${newSignature} ${oldSigned.signature}`,
      ]) {
        const answer = await handler(withSignature(oldSigned.request, header));
        expect(answer.status, header).toBe(200);
      }
    }
    // And the receiver holding both keys (its own rotation) verifies either signature alone.
    const { handler } = setup([SECRET, OTHER]);
    expect((await handler(delivery(OTHER, TEMPLATE, 'a').request)).status).toBe(200);
    expect((await handler(delivery(SECRET, TEMPLATE, 'b').request)).status).toBe(200);
  });

  it('a tampered body, a wrong secret: 401, nothing stored', async () => {
    const { handler, stored, outcomes } = setup([SECRET]);
    const { request } = delivery(SECRET, TEMPLATE, 'msg_t');
    const tampered = { ...request, body: Buffer.from(TEMPLATE.replace('"NDA"', '"NDB"')) };
    const first = await handler(tampered);
    expect(first.status).toBe(401);
    expect(json(first.body)).toEqual({ error: 'signature does not match' });
    expect((await handler(delivery(OTHER, TEMPLATE, 'msg_w').request)).status).toBe(401);
    expect(await stored()).toEqual([]);
    // The log line and the metrics name the delivery id of a refused delivery too.
    expect(outcomes.map((o) => o.deliveryId)).toEqual(['msg_t', 'msg_w']);
  });

  it('a stale and a future timestamp: 401 over the 5-minute tolerance, accepted within it', async () => {
    const { handler } = setup([SECRET]);
    const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
    const stale = await handler(delivery(SECRET, TEMPLATE, 's', at(-301)).request);
    expect(stale.status).toBe(401);
    expect(json(stale.body).error).toBe('timestamp is 301 s old, over the tolerance of 300 s');
    const future = await handler(delivery(SECRET, TEMPLATE, 'f', at(301)).request);
    expect(future.status).toBe(401);
    expect(json(future.body).error).toBe(
      'timestamp is 301 s in the future, over the tolerance of 300 s',
    );
    expect((await handler(delivery(SECRET, TEMPLATE, 'o', at(-299)).request)).status).toBe(200);
    expect((await handler(delivery(SECRET, TEMPLATE, 'n', at(299)).request)).status).toBe(200);
    // A tolerance of its own.
    const strict = setup([SECRET], 10).handler;
    expect((await strict(delivery(SECRET, TEMPLATE, 'x', at(-11)).request)).status).toBe(401);
  });

  it('a reused webhook-id: a duplicate, stored once', async () => {
    const { handler, stored } = setup([SECRET]);
    await handler(delivery(SECRET, TEMPLATE, 'msg_dup').request);
    const again = await handler(
      delivery(SECRET, TEMPLATE, 'msg_dup', new Date(NOW.getTime() + 5000)).request,
    );
    expect(again.status).toBe(200);
    expect(json(again.body)).toEqual({ position: 1, duplicate: true });
    expect(await stored()).toHaveLength(1);
  });

  it('the id is required and signed: missing, or changed after signing, is 401', async () => {
    const { handler } = setup([SECRET]);
    const { request } = delivery(SECRET, TEMPLATE, 'msg_id');
    const headers = request.headers as Record<string, string>;
    const { 'webhook-id': _id, ...withoutId } = headers;
    const missing = await handler({ ...request, headers: withoutId });
    expect(missing.status).toBe(401);
    expect(json(missing.body).error).toBe('missing header webhook-id');
    const changed = await handler({
      ...request,
      headers: { ...headers, 'webhook-id': 'msg_other' },
    });
    expect(changed.status).toBe(401);
  });

  it('a secret without whsec_ (or a sender key) is refused when the handler is made, naming the form', () => {
    const log = createMemoryEventLog();
    const make = (secret: string) => () =>
      createWebhookHandler({ log, secrets: [secret], signature: 'standard-webhooks' });
    expect(make(SECRET.slice('whsec_'.length))).toThrow(
      /secrets\[0\] is not a Standard Webhooks secret: expected whsec_ followed by the base64 of the key bytes/,
    );
    expect(make('whsec_not base64!')).toThrow(/not a Standard Webhooks secret/);
    expect(make('whsk_AAAA')).toThrow(/signing key \(whsk_\), which only the sender holds/);
    expect(make('whpk_AAAA')).toThrow(/32 bytes of an Ed25519 public key/);
    // The message never shows the secret itself.
    expect(make('plain-text-secret')).not.toThrow(/plain-text-secret/);
  });
});

describe('svix signs, signfold verifies', () => {
  it('with svix- headers, as Svix sends them', async () => {
    const { handler, stored } = setup([SECRET]);
    const signature = new SvixWebhook(SECRET).sign('msg_svix', NOW, TEMPLATE);
    const headers = {
      'svix-id': 'msg_svix',
      'svix-timestamp': String(NOW_SECONDS),
      'svix-signature': signature,
    };
    const answer = await handler({ method: 'POST', headers, body: Buffer.from(TEMPLATE) });
    expect(answer.status).toBe(200);
    const [record] = await stored();
    expect(record?.kind === 'entry' && record.deliveryId).toBe('msg_svix');
    const wrong = new SvixWebhook(OTHER).sign('msg_svix2', NOW, TEMPLATE);
    const refused = await handler({
      method: 'POST',
      headers: { ...headers, 'svix-id': 'msg_svix2', 'svix-signature': wrong },
      body: Buffer.from(TEMPLATE),
    });
    expect(refused.status).toBe(401);
  });
});

/** A `v1a` delivery signed with an Ed25519 private key. */
const ed25519Delivery = (key: KeyObject, body: string, id: string): WebhookRequest => {
  const signed = Buffer.from(`${id}.${NOW_SECONDS}.${body}`);
  const signature = sign(null, signed, key).toString('base64');
  const headers = {
    'webhook-id': id,
    'webhook-timestamp': String(NOW_SECONDS),
    'webhook-signature': `v1a,${signature}`,
  };
  return { method: 'POST', headers, body: Buffer.from(body) };
};
const publicKeyText = (key: KeyObject) =>
  `whpk_${Buffer.from(key.export({ format: 'jwk' }).x ?? '', 'base64url').toString('base64')}`;

describe('Ed25519 (v1a) with whpk_ public keys', () => {
  const sender = generateKeyPairSync('ed25519');
  const stranger = generateKeyPairSync('ed25519');

  it('verifies with the sender public key, refuses a signature by another key', async () => {
    const { handler, stored } = setup([publicKeyText(sender.publicKey)]);
    expect((await handler(ed25519Delivery(sender.privateKey, TEMPLATE, 'ed-1'))).status).toBe(200);
    const wrong = await handler(ed25519Delivery(stranger.privateKey, TEMPLATE, 'ed-2'));
    expect(wrong.status).toBe(401);
    const tampered = ed25519Delivery(sender.privateKey, TEMPLATE, 'ed-3');
    const changed = await handler({ ...tampered, body: Buffer.from(`${TEMPLATE} `) });
    expect(changed.status).toBe(401);
    expect((await stored()).map((r) => (r.kind === 'entry' ? r.deliveryId : r.kind))).toEqual([
      'ed-1',
    ]);
  });

  it('a v1a signature is not checked against an HMAC secret, nor v1 against a public key', async () => {
    const { handler } = setup([SECRET, publicKeyText(sender.publicKey)]);
    const { request } = delivery(SECRET, TEMPLATE, 'mixed');
    const asV1a = (request.headers as Record<string, string>)['webhook-signature']?.replace(
      'v1,',
      'v1a,',
    );
    expect((await handler(withSignature(request, asV1a ?? ''))).status).toBe(401);
    const ed = ed25519Delivery(sender.privateKey, TEMPLATE, 'mixed-2');
    const asV1 = (ed.headers as Record<string, string>)['webhook-signature']?.replace(
      'v1a,',
      'v1,',
    );
    expect((await handler(withSignature(ed, asV1 ?? ''))).status).toBe(401);
    expect((await handler(ed)).status).toBe(200);
  });
});

describe('laws (fast-check)', () => {
  const keyArb = fc.uint8Array({ minLength: 24, maxLength: 64 }).map(secretOf);
  const keysArb = fc.uniqueArray(keyArb, { minLength: 1, maxLength: 4 });
  const idArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);
  const bodyArb = fc
    .record({ companyId: fc.integer({ min: 1, max: 9 }), note: fc.string({ maxLength: 60 }) })
    .map((value) => JSON.stringify(value));
  const offsetArb = fc.integer({ min: -300, max: 300 });

  it('any set of secrets verifies what each of them signed', async () => {
    await fc.assert(
      fc.asyncProperty(
        keysArb,
        fc.nat(),
        idArb,
        bodyArb,
        offsetArb,
        async (keys, pick, id, body, offset) => {
          const { handler } = setup(keys);
          const key = keys[pick % keys.length] ?? '';
          const at = new Date((NOW_SECONDS + offset) * 1000);
          const answer = await handler(delivery(key, body, id, at).request);
          expect(answer.status).toBe(200);
        },
      ),
      { numRuns: count(100, 1000) },
    );
  });

  it('any change to the id, the timestamp or the body fails', async () => {
    const change = fc.oneof(
      fc.record({ id: idArb }),
      fc.record({ timestamp: fc.integer({ min: -300, max: 300 }).filter((n) => n !== 0) }),
      fc.record({ body: bodyArb }),
    );
    await fc.assert(
      fc.asyncProperty(keysArb, idArb, bodyArb, change, async (keys, id, body, changed) => {
        const { handler, stored } = setup(keys);
        const { request } = delivery(keys[0] ?? '', body, id);
        const headers = { ...(request.headers as Record<string, string>) };
        let sentBody = body;
        if ('id' in changed) fc.pre(changed.id !== id);
        if ('id' in changed) headers['webhook-id'] = changed.id;
        if ('timestamp' in changed)
          headers['webhook-timestamp'] = String(NOW_SECONDS + changed.timestamp);
        if ('body' in changed) {
          fc.pre(changed.body !== body);
          sentBody = changed.body;
        }
        const answer = await handler({ method: 'POST', headers, body: Buffer.from(sentBody) });
        expect(answer.status).toBe(401);
        expect(await stored()).toEqual([]);
      }),
      { numRuns: count(100, 1000) },
    );
  });
});
