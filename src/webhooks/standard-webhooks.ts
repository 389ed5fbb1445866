/**
 * Verification under the Standard Webhooks scheme (standardwebhooks.com, as
 * the `standardwebhooks` and `svix` libraries send it): the signed content is
 * `{webhook-id}.{webhook-timestamp}.{body}`, the signature header holds
 * space-separated `v1,<base64 HMAC-SHA256>` and `v1a,<base64 Ed25519>`
 * values, and the timestamp must be within the tolerance. Each header is
 * read by its `webhook-` name, or else by its `svix-` name (what Svix's own
 * verifier accepts). The id, being signed, is the delivery id.
 */
import { verify } from 'node:crypto';
import { err, ok, type Result, safeTry } from 'neverthrow';
import { headerValues } from './header-values.js';
import { decodeSignature } from './signature-encoding.js';
import type { StandardWebhooksScheme } from './signature-options.js';
import { timestampInWindow } from './timestamp-window.js';
import { MAX_SIGNATURE_VALUES, matchingMacs } from './verify-signature.js';
import type { VerifyingKey } from './verifying-keys.js';
import type { WebhookHeaders } from './webhook-types.js';

/** The headers of the scheme, by their standard names. */
export const STANDARD_WEBHOOKS_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/** What a verified delivery brings: its (signed) id and the keys that verified it. */
export interface StandardVerified {
  readonly deliveryId: string;
  readonly matched: readonly VerifyingKey[];
}

/** The values of header `webhook-<name>`, or else of `svix-<name>`. */
const standardValues = (headers: WebhookHeaders, name: string): readonly string[] => {
  const values = headerValues(headers, `webhook-${name}`).filter((v) => v.trim() !== '');
  return values.length > 0
    ? values
    : headerValues(headers, `svix-${name}`).filter((v) => v.trim() !== '');
};

/** Exactly one value of a header, or why not. */
const single = (headers: WebhookHeaders, name: string): Result<string | undefined, string> => {
  const values = standardValues(headers, name);
  if (values.length > 1) return err(`several webhook-${name} headers: send one`);
  return ok(values[0]);
};

/** The `v1` (HMAC) and `v1a` (Ed25519) signatures of the header, decoded; others are ignored. */
const signatures = (header: readonly string[]): { v1: Uint8Array[]; v1a: Uint8Array[] } => {
  const v1: Uint8Array[] = [];
  const v1a: Uint8Array[] = [];
  const values = header.flatMap((value) => value.split(' ')).filter((value) => value !== '');
  for (const value of values.slice(0, MAX_SIGNATURE_VALUES)) {
    const comma = value.indexOf(',');
    const version = value.slice(0, comma);
    const bytes = comma > 0 ? decodeSignature(value.slice(comma + 1), 'base64') : undefined;
    if (bytes === undefined) continue;
    if (version === 'v1') v1.push(bytes);
    else if (version === 'v1a') v1a.push(bytes);
  }
  return { v1, v1a };
};

/** The Ed25519 keys among `keys` under which one of `given` signs `payload`. */
const matchingSignatures = (
  keys: readonly VerifyingKey[],
  given: readonly Uint8Array[],
  payload: Uint8Array,
): VerifyingKey[] =>
  keys.filter(
    (key) =>
      key.kind === 'ed25519' &&
      given.some((signature) => {
        try {
          return signature.length === 64 && verify(null, payload, key.key, signature);
        } catch {
          return false;
        }
      }),
  );

/**
 * The delivery's id and the keys that verify it; otherwise why it is
 * refused (401): a missing or repeated header, a timestamp outside the
 * window, no signature of a key.
 */
export const verifyStandardWebhooks = (
  scheme: StandardWebhooksScheme,
  keys: readonly VerifyingKey[],
  headers: WebhookHeaders,
  body: Uint8Array,
  now: Date,
): Result<StandardVerified, string> =>
  safeTry(function* () {
    const id = yield* single(headers, 'id');
    if (id === undefined) return err(`missing header ${STANDARD_WEBHOOKS_HEADERS.id}`);
    const timestamp = yield* single(headers, 'timestamp');
    const header = standardValues(headers, 'signature');
    if (header.length === 0) return err(`missing header ${STANDARD_WEBHOOKS_HEADERS.signature}`);
    const seconds = yield* timestampInWindow(
      timestamp,
      STANDARD_WEBHOOKS_HEADERS.timestamp,
      scheme.toleranceSeconds,
      now,
    );
    if (keys.length === 0) return err('no secret is configured: every signature is refused');
    const payload = Buffer.concat([Buffer.from(`${id}.${seconds}.`), body]);
    const { v1, v1a } = signatures(header);
    const matched = [
      ...matchingMacs('sha256', keys, v1, payload),
      ...matchingSignatures(keys, v1a, payload),
    ];
    return matched.length > 0 ? ok({ deliveryId: id, matched }) : err('signature does not match');
  });
