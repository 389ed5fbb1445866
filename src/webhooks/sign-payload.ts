/**
 * The HMAC of a delivery: what a sender computes and what verification
 * recomputes, in one place.
 */
import { createHmac } from 'node:crypto';
import { signatureScheme } from './signature-options.js';
import type { SignatureAlgorithm, SignatureOptions } from './webhook-types.js';

/** The raw HMAC bytes of `payload` under `secret` (a Uint8Array: the declarations need no @types/node). */
export const hmacOf = (
  algorithm: SignatureAlgorithm,
  secret: string | Uint8Array,
  payload: Uint8Array,
): Uint8Array => createHmac(algorithm, secret).update(payload).digest();

/**
 * The signature header value a sender would send for `body` (without the
 * prefix), by the same options the handler verifies with: for tests, for a
 * client of your own, or to check a provider's setup. With
 * `signature.timestamp`, pass the `timestamp` (whole seconds) you send.
 * Throws on invalid options, as `createWebhookHandler` does.
 *
 * @example
 * ```ts
 * import { signWebhookBody } from 'signfold/webhooks';
 *
 * const body = new TextEncoder().encode('{"type":"template-deleted"}');
 * const value = signWebhookBody(body, 'my secret');
 * console.log(value.length); // 64 (hex of HMAC-SHA256)
 * ```
 */
export const signWebhookBody = (
  body: Uint8Array,
  secret: string,
  options: SignatureOptions = {},
  timestamp?: string,
): string => {
  const scheme = signatureScheme(options);
  const payload =
    scheme.timestamp === undefined ? body : scheme.timestamp.signedPayload(timestamp ?? '', body);
  return Buffer.from(hmacOf(scheme.algorithm, secret, payload)).toString(scheme.encoding);
};
