// Signs deliveries the way a sender does under `signfold serve`'s default scheme (issue 18: header
// `x-signature`, the hex HMAC-SHA256 of the raw body, optionally prefixed `sha256=`; the delivery
// id in `x-delivery-id`). Written from the contract with node:crypto, not with signfold's verifier,
// so the tests and benchmarks that use it check the verifier against an independent signer.
import { createHmac, sign } from 'node:crypto';

/** The environment variable `serve` reads its secret from by default. */
export const SECRET_ENV = 'SIGNFOLD_WEBHOOK_SECRET';
/** The default signature header. */
export const SIGNATURE_HEADER = 'x-signature';
/** The default delivery header. */
export const DELIVERY_HEADER = 'x-delivery-id';

/**
 * The signature of `body` with `secret`: hex HMAC-SHA256 by default, `sha256=`-prefixed when
 * `prefixed` (the prefix names the algorithm).
 * @param {Uint8Array | string} body
 * @param {string} secret
 * @param {{ algorithm?: 'sha256' | 'sha1' | 'sha512', encoding?: 'hex' | 'base64', prefixed?: boolean }} [options]
 */
export const signBody = (body, secret, options = {}) => {
  const { algorithm = 'sha256', encoding = 'hex', prefixed = false } = options;
  const value = createHmac(algorithm, secret).update(body).digest(encoding);
  return prefixed ? `${algorithm}=${value}` : value;
};

/**
 * The headers of one signed delivery: the signature of `body` with `secret` (none when `secret` is
 * undefined, for `--insecure-no-signature`) and the delivery id (none when undefined).
 * @param {Uint8Array | string} body
 * @param {{ secret?: string, deliveryId?: string, prefixed?: boolean }} options
 * @returns {Record<string, string>}
 */
export const deliveryHeaders = (body, { secret, deliveryId, prefixed = false }) => {
  const headers = {};
  if (secret !== undefined) headers[SIGNATURE_HEADER] = signBody(body, secret, { prefixed });
  if (deliveryId !== undefined) headers[DELIVERY_HEADER] = deliveryId;
  return headers;
};

/**
 * The headers of one delivery under `--scheme standard-webhooks`, signed over the raw bytes
 * `{id}.{timestamp}.{body}` with node:crypto (not with a library that decodes the body as text
 * first, so a body that is not UTF-8 is signed as sent): HMAC-SHA256 (`v1,`) with a `whsec_`
 * secret, or Ed25519 (`v1a,`) with a private `KeyObject`.
 * @param {Uint8Array | string} body
 * @param {{ secret: string | import('node:crypto').KeyObject, id: string, timestamp?: number }} options
 * @returns {Record<string, string>}
 */
export const standardWebhookHeaders = (body, { secret, id, timestamp }) => {
  const seconds = String(timestamp ?? Math.floor(Date.now() / 1000));
  const signed = Buffer.concat([Buffer.from(`${id}.${seconds}.`), Buffer.from(body)]);
  const signature =
    typeof secret === 'string'
      ? `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
          .update(signed)
          .digest('base64')}`
      : `v1a,${sign(null, signed, secret).toString('base64')}`;
  return { 'webhook-id': id, 'webhook-timestamp': seconds, 'webhook-signature': signature };
};
