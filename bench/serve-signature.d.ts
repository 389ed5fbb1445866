/** Type declarations for `bench/serve-signature.js` (plain ESM JavaScript), for the tests. */

export const SECRET_ENV: 'SIGNFOLD_WEBHOOK_SECRET';
export const SIGNATURE_HEADER: 'x-signature';
export const DELIVERY_HEADER: 'x-delivery-id';

/** The HMAC of `body` with `secret` (hex SHA-256 by default), `algorithm=`-prefixed when `prefixed`. */
export function signBody(
  body: Uint8Array | string,
  secret: string,
  options?: {
    readonly algorithm?: 'sha256' | 'sha1' | 'sha512';
    readonly encoding?: 'hex' | 'base64';
    readonly prefixed?: boolean;
  },
): string;

/** The signature header (when `secret` is given) and the delivery header (when `deliveryId` is). */
export function deliveryHeaders(
  body: Uint8Array | string,
  options: { readonly secret?: string; readonly deliveryId?: string; readonly prefixed?: boolean },
): Record<string, string>;

/**
 * The Standard Webhooks headers of one delivery, signed over the raw bytes: `v1` with a `whsec_`
 * secret, `v1a` (Ed25519) with a private key object.
 */
export function standardWebhookHeaders(
  body: Uint8Array | string,
  options: {
    readonly secret: string | import('node:crypto').KeyObject;
    readonly id: string;
    readonly timestamp?: number;
  },
): Record<string, string>;
