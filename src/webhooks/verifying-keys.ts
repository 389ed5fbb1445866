/**
 * The handler's `secrets` resolved once, when it is created, into the keys
 * verification uses, each with the companies it is bound to. A wrong secret
 * is a programmer's error and throws there (naming its index and the form
 * expected, never its value), not on a request.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { isWireId } from '../core/events/wire-id.js';
import { decodeSignature } from './signature-encoding.js';
import type { BoundSecret } from './webhook-types.js';

/** A key that verifies, and the companies whose events it may deliver (`undefined`: any). */
export type VerifyingKey =
  | {
      readonly kind: 'hmac';
      readonly key: string | Uint8Array;
      readonly companies: ReadonlySet<number> | undefined;
    }
  | {
      readonly kind: 'ed25519';
      readonly key: KeyObject;
      readonly companies: ReadonlySet<number> | undefined;
    };

/** Standard Webhooks' symmetric secret: `whsec_` + base64 of the key bytes. */
export const SECRET_PREFIX = 'whsec_';
/** Standard Webhooks' public key (Ed25519, to verify `v1a` signatures): `whpk_` + base64 of its 32 bytes. */
export const PUBLIC_KEY_PREFIX = 'whpk_';
/** Standard Webhooks' private key: the sender's, never the receiver's. */
const PRIVATE_KEY_PREFIX = 'whsk_';

const ED25519_KEY_BYTES = 32;

/** The secret text and its companies, checked. */
const unbind = (entry: unknown, at: string): [string, ReadonlySet<number> | undefined] => {
  if (typeof entry === 'string') {
    if (entry === '') throw new TypeError(`${at} is empty: an empty key is no secret`);
    return [entry, undefined];
  }
  const bound = entry as Partial<BoundSecret> | null;
  if (typeof bound !== 'object' || bound === null || typeof bound.secret !== 'string') {
    throw new TypeError(`${at} must be a non-empty string or { secret, companies }`);
  }
  if (bound.secret === '') throw new TypeError(`${at}.secret is empty: an empty key is no secret`);
  const { companies } = bound;
  if (!Array.isArray(companies) || companies.length === 0 || !companies.every(isWireId)) {
    throw new TypeError(
      `${at}.companies must list at least one company id (safe integers); leave the secret a plain string to allow any company`,
    );
  }
  return [bound.secret, new Set(companies.map((id) => id + 0))];
};

/** A Standard Webhooks key from its text: a `whsec_` secret or a `whpk_` public key. */
const standardKey = (
  text: string,
  at: string,
  companies: ReadonlySet<number> | undefined,
): VerifyingKey => {
  const expected = `expected ${SECRET_PREFIX} followed by the base64 of the key bytes (or ${PUBLIC_KEY_PREFIX} and an Ed25519 public key)`;
  if (text.startsWith(SECRET_PREFIX)) {
    const bytes = decodeSignature(text.slice(SECRET_PREFIX.length), 'base64');
    if (bytes === undefined || bytes.length === 0) {
      throw new TypeError(`${at} is not a Standard Webhooks secret: ${expected}`);
    }
    return { kind: 'hmac', key: bytes, companies };
  }
  if (text.startsWith(PUBLIC_KEY_PREFIX)) {
    const bytes = decodeSignature(text.slice(PUBLIC_KEY_PREFIX.length), 'base64');
    if (bytes === undefined || bytes.length !== ED25519_KEY_BYTES) {
      throw new TypeError(
        `${at} is not a Standard Webhooks public key: expected ${PUBLIC_KEY_PREFIX} followed by the base64 of the 32 bytes of an Ed25519 public key`,
      );
    }
    const x = Buffer.from(bytes).toString('base64url');
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    return { kind: 'ed25519', key, companies };
  }
  if (text.startsWith(PRIVATE_KEY_PREFIX)) {
    throw new TypeError(
      `${at} is a Standard Webhooks signing key (${PRIVATE_KEY_PREFIX}), which only the sender holds: give the receiver its public key (${PUBLIC_KEY_PREFIX})`,
    );
  }
  throw new TypeError(`${at} is not a Standard Webhooks secret: ${expected}`);
};

/**
 * The keys of `secrets` for a scheme: HMAC keys as text under `hmac`;
 * `whsec_`/`whpk_` keys under `standard-webhooks`. Throws `TypeError` on a
 * wrong entry, naming it as `option[i]`.
 */
export const verifyingKeys = (
  secrets: unknown,
  scheme: 'hmac' | 'standard-webhooks',
  option = 'secrets',
): readonly VerifyingKey[] => {
  if (!Array.isArray(secrets)) {
    throw new TypeError(`${option} must be an array of non-empty strings or { secret, companies }`);
  }
  return secrets.map((entry: unknown, index) => verifyingKey(entry, scheme, `${option}[${index}]`));
};

/** One entry of `secrets` as a key; throws `TypeError` naming it `at` (never its value). */
export const verifyingKey = (
  entry: unknown,
  scheme: 'hmac' | 'standard-webhooks',
  at: string,
): VerifyingKey => {
  const [text, companies] = unbind(entry, at);
  return scheme === 'hmac'
    ? { kind: 'hmac', key: text, companies }
    : standardKey(text, at, companies);
};
