/**
 * Verifies a delivery's signature under the `hmac` scheme against every key
 * (rotation) and every value the signature headers carry (several headers,
 * or several values separated by commas, as providers send during a key
 * rotation of their own). MACs are compared with `timingSafeEqual` on
 * equal-length buffers only, and every key is tried (no early exit), so the
 * time taken says nothing about which key matched.
 */
import { timingSafeEqual } from 'node:crypto';
import { err, ok, type Result } from 'neverthrow';
import { headerValues } from './header-values.js';
import { hmacOf } from './sign-payload.js';
import { decodeSignature } from './signature-encoding.js';
import type { SignatureScheme } from './signature-options.js';
import { timestampInWindow } from './timestamp-window.js';
import type { VerifyingKey } from './verifying-keys.js';
import type { WebhookHeaders } from './webhook-types.js';

/** At most this many values are tried, so a header of thousands of commas costs nothing. */
export const MAX_SIGNATURE_VALUES = 16;

/** The signature values of the headers, prefix dropped when present. */
const candidateValues = (scheme: SignatureScheme, headers: WebhookHeaders): string[] => {
  const values: string[] = [];
  for (const name of scheme.headers) {
    for (const header of headerValues(headers, name)) {
      for (const part of header.split(',')) {
        const value = part.trim();
        if (value === '') continue;
        const prefixed = scheme.prefix !== '' && value.toLowerCase().startsWith(scheme.prefix);
        values.push(prefixed ? value.slice(scheme.prefix.length) : value);
      }
    }
  }
  return values.slice(0, MAX_SIGNATURE_VALUES);
};

/** The bytes that were signed: the body, or the timestamp and the body when it is in the tolerance. */
const signedPayload = (
  scheme: SignatureScheme,
  headers: WebhookHeaders,
  body: Uint8Array,
  now: Date,
): Result<Uint8Array, string> => {
  const { timestamp } = scheme;
  if (timestamp === undefined) return ok(body);
  const [value] = headerValues(headers, timestamp.header);
  return timestampInWindow(value, timestamp.header, timestamp.toleranceSeconds, now).map((text) =>
    timestamp.signedPayload(text, body),
  );
};

/** The keys among `keys` whose MAC of `payload` is one of the `given` values. */
export const matchingMacs = (
  algorithm: SignatureScheme['algorithm'],
  keys: readonly VerifyingKey[],
  given: readonly Uint8Array[],
  payload: Uint8Array,
): VerifyingKey[] => {
  const matched: VerifyingKey[] = [];
  for (const key of keys) {
    if (key.kind !== 'hmac') continue;
    const mac = hmacOf(algorithm, key.key, payload);
    let found = false;
    for (const value of given) {
      // timingSafeEqual throws on different lengths; a length says nothing about the secret.
      if (value.length === mac.length && timingSafeEqual(value, mac)) found = true;
    }
    if (found) matched.push(key);
  }
  return matched;
};

/**
 * The keys under which some value of the signature headers is the MAC of
 * the signed payload (at least one); otherwise why none (no key at all
 * included).
 */
export const verifySignature = (
  scheme: SignatureScheme,
  keys: readonly VerifyingKey[],
  headers: WebhookHeaders,
  body: Uint8Array,
  now: Date,
): Result<readonly VerifyingKey[], string> => {
  const values = candidateValues(scheme, headers);
  if (values.length === 0) return err(`missing signature header ${scheme.headers.join(' or ')}`);
  return signedPayload(scheme, headers, body, now).andThen(
    (payload): Result<readonly VerifyingKey[], string> => {
      if (keys.length === 0) return err('no secret is configured: every signature is refused');
      const given = values.flatMap((value) => decodeSignature(value, scheme.encoding) ?? []);
      const matched = matchingMacs(scheme.algorithm, keys, given, payload);
      return matched.length > 0 ? ok(matched) : err('signature does not match');
    },
  );
};
