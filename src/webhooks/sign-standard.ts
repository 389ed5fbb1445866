/**
 * The sending side of Standard Webhooks (standardwebhooks.com): the
 * `webhook-signature` value of a delivery, `v1,<base64 HMAC-SHA256>` under a
 * `whsec_` secret or `v1a,<base64 Ed25519>` under a `whsk_` signing key, over
 * `{webhook-id}.{webhook-timestamp}.{body}`: the content that
 * verify (standard-webhooks.ts) checks. The HMAC is sign-payload.ts's own.
 */
import { createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto';
import { hmacOf } from './sign-payload.js';
import { decodeSignature } from './signature-encoding.js';
import { PUBLIC_KEY_PREFIX, SECRET_PREFIX } from './verifying-keys.js';

/** Standard Webhooks' signing key (Ed25519): `whsk_` + base64 of its 32-byte seed (or 64 bytes, seed then public key). */
export const SIGNING_KEY_PREFIX = 'whsk_';

// PKCS #8 DER of an Ed25519 private key, before its 32-byte seed (RFC 8410).
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A key that signs deliveries under Standard Webhooks. */
export type StandardSigningKey =
  | { readonly kind: 'hmac'; readonly key: Uint8Array }
  | { readonly kind: 'ed25519'; readonly key: KeyObject };

/**
 * The signing key of a `whsec_` secret or a `whsk_` signing key; throws a
 * `TypeError` naming `name` and the form expected (never the value).
 */
export const standardSigningKey = (text: string, name: string): StandardSigningKey => {
  if (text.startsWith(SECRET_PREFIX)) {
    const bytes = decodeSignature(text.slice(SECRET_PREFIX.length), 'base64');
    if (bytes !== undefined && bytes.length > 0) return { kind: 'hmac', key: bytes };
  } else if (text.startsWith(SIGNING_KEY_PREFIX)) {
    const bytes = decodeSignature(text.slice(SIGNING_KEY_PREFIX.length), 'base64');
    if (bytes !== undefined && (bytes.length === 32 || bytes.length === 64)) {
      const der = Buffer.concat([ED25519_PKCS8_PREFIX, bytes.subarray(0, 32)]);
      return { kind: 'ed25519', key: createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }) };
    }
  }
  throw new TypeError(
    `${name} is not a Standard Webhooks signing secret: expected ${SECRET_PREFIX} followed by the base64 of the key bytes, or ${SIGNING_KEY_PREFIX} followed by the base64 of a 32-byte Ed25519 seed`,
  );
};

/** The `whpk_` public key a receiver verifies an Ed25519 signing key's deliveries with. */
export const publicKeyOf = (key: StandardSigningKey & { kind: 'ed25519' }): string => {
  const jwk = createPublicKey(key.key).export({ format: 'jwk' });
  return `${PUBLIC_KEY_PREFIX}${Buffer.from(String(jwk.x), 'base64url').toString('base64')}`;
};

/** The `webhook-signature` value of a delivery `id` sent at `timestamp` (whole seconds). */
export const signStandardWebhook = (
  key: StandardSigningKey,
  id: string,
  timestamp: number,
  body: Uint8Array,
): string => {
  const payload = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), body]);
  return key.kind === 'hmac'
    ? `v1,${Buffer.from(hmacOf('sha256', key.key, payload)).toString('base64')}`
    : `v1a,${sign(null, payload, key.key).toString('base64')}`;
};
