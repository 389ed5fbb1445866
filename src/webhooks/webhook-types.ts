/**
 * The framework-free shapes of the webhook handler: what any HTTP framework
 * hands over (method, headers, raw body bytes) and what it writes back.
 */
import type { EventLog } from '../engine/event-log.js';
import type { Projector } from '../engine/projector.js';
import type { Tracing } from '../engine/tracing.js';

/**
 * Request headers: a plain object (node:http, Express, Fastify) whose names
 * are matched case-insensitively, or anything with a Fetch-style `get` (Hono,
 * `Request.headers`), which joins repeated headers with `", "`.
 */
export type WebhookHeaders =
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | {
      /** The value of header `name`, repeated headers joined; `null` when absent. */
      get(name: string): string | null;
    };

/** What any framework gives us. */
export interface WebhookRequest {
  readonly method: string;
  readonly headers: WebhookHeaders;
  /** The raw body bytes, exactly as received (never a re-serialized parsed body). */
  readonly body: Uint8Array;
  /**
   * The request target as received (path and query string, `/webhooks?sig=…`),
   * for a {@link WebhookHandlerOptions.verify} hook that reads the query string.
   * `handleNodeRequest` sets it; the built-in schemes ignore it.
   */
  readonly url?: string;
  /**
   * Set by a caller that stopped reading the body because it was larger than
   * this many bytes (`handleNodeRequest` does): the answer is 413 whatever
   * `body` holds, so a cut body is never stored.
   */
  readonly overLimit?: number;
}

/** What to write back. */
export interface WebhookResponse {
  readonly status: number;
  /** Always `content-type`; `retry-after` on 503, `allow` on 405. */
  readonly headers: Readonly<Record<string, string>>;
  /** A small JSON document (ends with a newline). */
  readonly body: string;
  /** What was decided; always set by `createWebhookHandler` (the same value `onOutcome` got). */
  readonly outcome?: WebhookOutcome;
}

/** What was decided about one request, for metrics and logs. */
export type WebhookOutcome =
  | {
      readonly kind: 'stored';
      readonly deliveryId: string | undefined;
      readonly position: number;
      readonly appendMs: number;
    }
  | {
      readonly kind: 'duplicate';
      readonly deliveryId: string;
      readonly position: number;
      readonly appendMs: number;
    }
  | {
      readonly kind: 'rejected';
      readonly status: 400 | 401 | 405 | 413;
      /** Why; control and bidi characters escaped (`\u202e`), so it is safe to print (also below). */
      readonly reason: string;
      readonly deliveryId: string | undefined;
    }
  | {
      /** Verified, but only by secrets bound to other companies than the body's: 403, not stored. */
      readonly kind: 'forbidden';
      readonly status: 403;
      readonly reason: string;
      readonly deliveryId: string | undefined;
    }
  | {
      /** Answered by a {@link WebhookHandlerOptions.verify} hook itself (a handshake): nothing stored. */
      readonly kind: 'answered';
      readonly status: number;
      readonly deliveryId: string | undefined;
    }
  | {
      readonly kind: 'unavailable';
      readonly status: 503;
      readonly reason: string;
      readonly deliveryId: string | undefined;
    };

/** The HMAC algorithms a signature may use. */
export type SignatureAlgorithm = 'sha256' | 'sha1' | 'sha512';

/** How a signature value is written. */
export type SignatureEncoding = 'hex' | 'base64';

/** A signed timestamp that bounds how old (or how far in the future) a delivery may be. */
export interface TimestampOptions {
  /** The header carrying the time of signing, in whole seconds since the epoch. */
  readonly header: string;
  /** Largest accepted distance from now, in seconds, either way. */
  readonly toleranceSeconds: number;
  /** The bytes signed; default `${timestamp}.${body}`. */
  readonly signedPayload?: (timestamp: string, body: Uint8Array) => Uint8Array;
}

/**
 * How deliveries are signed under the `hmac` scheme (the default). Every
 * member has a default (see docs/webhooks.md).
 */
export interface SignatureOptions {
  /** `'hmac'`, the default; see {@link StandardWebhooksOptions} for the other scheme. */
  readonly scheme?: 'hmac';
  /** The header(s) carrying signatures; default `x-signature`. Several names: any may match. */
  readonly header?: string | readonly string[];
  /** Default `sha256`. */
  readonly algorithm?: SignatureAlgorithm;
  /** Default `hex` (either letter case); `base64` accepts padded or unpadded standard base64. */
  readonly encoding?: SignatureEncoding;
  /** Accepted (optional) before each value; default `${algorithm}=`; `''` for none. */
  readonly prefix?: string;
  /** Sign `${timestamp}.${body}` and refuse deliveries outside the tolerance. */
  readonly timestamp?: TimestampOptions;
}

/** The signature schemes known by name. */
export type SignatureSchemeName = 'hmac' | 'standard-webhooks';

/**
 * The Standard Webhooks scheme (standardwebhooks.com, as Svix sends it):
 * headers `webhook-id`, `webhook-timestamp` and `webhook-signature` (or
 * their `svix-` names), the signed content `id.timestamp.body`, secrets
 * `whsec_` + base64 (HMAC-SHA256, `v1,` signatures) or public keys `whpk_` +
 * base64 (Ed25519, `v1a,` signatures), several signatures separated by
 * spaces. `webhook-id` is the delivery id, and is required.
 */
export interface StandardWebhooksOptions {
  readonly scheme: 'standard-webhooks';
  /** Largest accepted distance of `webhook-timestamp` from now, either way; default 300 s. */
  readonly toleranceSeconds?: number;
}

/**
 * A secret that verifies deliveries of some companies only: a delivery it
 * verifies whose body names another `companyId` (or none) is refused with
 * 403 and not stored. A plain string secret verifies any company's.
 */
export interface BoundSecret {
  /** The secret (an HMAC key; under Standard Webhooks `whsec_…` or `whpk_…`). */
  readonly secret: string;
  /** The companies whose events it may deliver (at least one). */
  readonly companies: readonly number[];
}

/** A response a {@link WebhookHandlerOptions.verify} hook writes itself. */
export interface WebhookReply {
  readonly status: number;
  /** Default `content-type: text/plain; charset=utf-8`. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What a {@link WebhookHandlerOptions.verify} hook is given. */
export interface VerificationRequest {
  readonly method: string;
  /** The request target (path and query string); `''` when the caller gave none. */
  readonly url: string;
  readonly headers: WebhookHeaders;
  /** The raw body bytes. */
  readonly body: Uint8Array;
}

/**
 * What a {@link WebhookHandlerOptions.verify} hook decided:
 * - `verified`: go on (method, delivery id, JSON, append) with the
 *   `deliveryId` it read (default: the delivery header's), bound to
 *   `companies` when given, and answer a stored or duplicate delivery with
 *   `reply` instead of the JSON answer when given;
 * - `refused`: answered 401 with `reason`, nothing stored;
 * - `reply`: answered with `reply` as it is, nothing stored (a handshake).
 */
export type Verification =
  | {
      readonly kind: 'verified';
      readonly deliveryId?: string;
      readonly companies?: readonly number[];
      readonly reply?: WebhookReply;
    }
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'reply'; readonly reply: WebhookReply };

/** Options of `createWebhookHandler`. */
export interface WebhookHandlerOptions {
  /** Where deliveries are appended: a file, memory or PostgreSQL log. */
  readonly log: Pick<EventLog, 'append'>;
  /**
   * Several at once = rotation: a signature by any of them verifies. Empty:
   * every request 401. A {@link BoundSecret} verifies its companies' events
   * only (403 for another's).
   */
  readonly secrets: readonly (string | BoundSecret)[];
  /** `true`: no verification at all (then `secrets` must be empty). */
  readonly insecureNoSignature?: boolean;
  /** The scheme: its name, or its options; default `hmac` with its defaults. */
  readonly signature?: SignatureSchemeName | SignatureOptions | StandardWebhooksOptions;
  /**
   * Verifies each request itself, instead of `secrets` and `signature` (which
   * must then be empty and absent), for a provider whose layout no option
   * fits: it gets every request, whatever its method, with its URL.
   */
  readonly verify?: (request: VerificationRequest) => Verification | Promise<Verification>;
  /** Default `x-delivery-id`; under `standard-webhooks` the id is `webhook-id` (not settable). */
  readonly deliveryHeader?: string;
  /** `true`: a request without a delivery id is refused (400). Default `false`: stored, not deduplicated. */
  readonly requireDeliveryId?: boolean;
  /** Default 256 KiB (the file log's event limit); larger bodies get 413. */
  readonly maxBodyBytes?: number;
  /** Seconds in the `Retry-After` of a 503; default 5. */
  readonly retryAfterSeconds?: number;
  /**
   * Applies each stored event live, in append order. Give it a projector
   * caught up with the log (replayed), on a log this process alone writes.
   */
  readonly projector?: Projector;
  /** Called with every decision before its response is returned (a throw is ignored). */
  readonly onOutcome?: (outcome: WebhookOutcome) => void;
  /** Clock for timestamps and `receivedAt`; injectable for tests. */
  readonly now?: () => Date;
  /**
   * Tells of each request in a `signfold.delivery` span and of its append in
   * a `signfold.append` span (`createOtelTracing` of `signfold/otel`; see
   * docs/tracing.md). Default: nothing traced, nothing gathered.
   */
  readonly tracing?: Tracing;
}

/** Answers one webhook request; never throws, never rejects. */
export type WebhookHandler = (request: WebhookRequest) => Promise<WebhookResponse>;
