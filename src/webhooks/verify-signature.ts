/**
 * Verifies a delivery's signature against every secret (rotation) and every
 * value the signature headers carry (several headers, or several values
 * separated by commas, as providers send during a key rotation of their own).
 * MACs are compared with `timingSafeEqual` on equal-length buffers only.
 */
import { timingSafeEqual } from 'node:crypto';
import { err, ok, type Result } from 'neverthrow';
import { headerValues } from './header-values.js';
import { hmacOf } from './sign-payload.js';
import { decodeSignature } from './signature-encoding.js';
import type { SignatureScheme } from './signature-options.js';
import type { WebhookHeaders } from './webhook-types.js';

/** At most this many values are tried, so a header of thousands of commas costs nothing. */
const MAX_VALUES = 16;
// Whole seconds since the epoch, no sign, no fraction, no exponent.
const SECONDS = /^[0-9]{1,12}$/;

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
  return values.slice(0, MAX_VALUES);
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
  if (value === undefined) return err(`missing timestamp header ${timestamp.header}`);
  const text = value.trim();
  if (!SECONDS.test(text)) return err(`timestamp header ${timestamp.header} is not whole seconds`);
  const skew = now.getTime() / 1000 - Number(text);
  if (skew > timestamp.toleranceSeconds) {
    return err(
      `timestamp is ${Math.round(skew)} s old, over the tolerance of ${timestamp.toleranceSeconds} s`,
    );
  }
  if (-skew > timestamp.toleranceSeconds) {
    return err(
      `timestamp is ${Math.round(-skew)} s in the future, over the tolerance of ${timestamp.toleranceSeconds} s`,
    );
  }
  return ok(timestamp.signedPayload(text, body));
};

/**
 * `ok` when some value of the signature headers is the MAC of the signed
 * payload under some secret; otherwise why not (no secret at all included).
 */
export const verifySignature = (
  scheme: SignatureScheme,
  secrets: readonly string[],
  headers: WebhookHeaders,
  body: Uint8Array,
  now: Date,
): Result<void, string> => {
  const values = candidateValues(scheme, headers);
  if (values.length === 0) return err(`missing signature header ${scheme.headers.join(' or ')}`);
  return signedPayload(scheme, headers, body, now).andThen((payload): Result<void, string> => {
    if (secrets.length === 0) return err('no secret is configured: every signature is refused');
    const expected = secrets.map((secret) => hmacOf(scheme.algorithm, secret, payload));
    let matched = false;
    for (const value of values) {
      const given = decodeSignature(value, scheme.encoding);
      if (given === undefined) continue;
      for (const mac of expected) {
        // timingSafeEqual throws on different lengths; a length says nothing about the secret.
        if (given.length === mac.length && timingSafeEqual(given, mac)) matched = true;
      }
    }
    return matched ? ok(undefined) : err('signature does not match');
  });
};
