/**
 * What a webhook handler decides with, checked once when it is created (one
 * object its parts share instead of a closure each), and the answers that end
 * a delivery: each tells `onOutcome`, and quotes what it was given only as
 * visible text.
 */
import { visibleText } from '../core/visible-text.js';
import type { EventLog } from '../engine/event-log.js';
import { byteLimit, DEFAULT_MAX_EVENT_BYTES } from '../engine/log-limits.js';
import { NO_TRACING, type Tracing } from '../engine/tracing.js';
import { DEFAULT_DELIVERY_HEADER, deliveryIdOf } from './delivery-id.js';
import { LiveApplier } from './live-apply.js';
import { headerName, type ResolvedScheme, resolveScheme } from './signature-options.js';
import { STANDARD_WEBHOOKS_HEADERS } from './standard-webhooks.js';
import { type VerifyingKey, verifyingKeys } from './verifying-keys.js';
import { rejectedAnswer, unavailableAnswer } from './webhook-answers.js';
import type {
  WebhookHandlerOptions,
  WebhookHeaders,
  WebhookOutcome,
  WebhookResponse,
} from './webhook-types.js';

/** The options of a handler, checked, and what is made of them once. */
export interface WebhookContext {
  readonly log: Pick<EventLog, 'append'>;
  readonly scheme: ResolvedScheme;
  readonly keys: readonly VerifyingKey[];
  /** `insecureNoSignature`: nothing is verified. */
  readonly insecure: boolean;
  readonly hook: WebhookHandlerOptions['verify'];
  readonly deliveryHeader: string;
  readonly requireId: boolean;
  readonly maxBodyBytes: number;
  readonly retryAfter: number;
  readonly now: () => Date;
  readonly live: LiveApplier | undefined;
  readonly tracing: Tracing;
  readonly onOutcome: ((outcome: WebhookOutcome) => void) | undefined;
  /** The headers that may show a delivery id before it is checked (once per handler, not per request). */
  readonly shownHeaders: readonly string[];
}

/** The checked options that decide how a request is verified. */
const verificationOf = (options: WebhookHandlerOptions) => {
  const scheme = resolveScheme(options.signature);
  const keys = verifyingKeys(options.secrets, scheme.kind);
  const insecure = options.insecureNoSignature === true;
  if (insecure && keys.length > 0) {
    throw new TypeError('insecureNoSignature: true verifies nothing, so secrets must be empty');
  }
  const hook = options.verify;
  if (hook !== undefined) {
    if (typeof hook !== 'function') throw new TypeError('verify must be a function');
    if (keys.length > 0 || options.signature !== undefined || insecure) {
      throw new TypeError(
        'verify replaces the built-in verification: leave secrets empty, signature and insecureNoSignature unset',
      );
    }
  }
  const standard = scheme.kind === 'standard-webhooks';
  if (standard && options.deliveryHeader !== undefined) {
    throw new TypeError(
      'deliveryHeader: under standard-webhooks the delivery id is the signed webhook-id header',
    );
  }
  if (standard && options.requireDeliveryId === false) {
    throw new TypeError('requireDeliveryId: standard-webhooks requires webhook-id');
  }
  return { scheme, keys, insecure, hook };
};

/** Checks `options` (a `TypeError` on an invalid one: a programmer's error) and makes the context. */
export const webhookContextOf = (options: WebhookHandlerOptions): WebhookContext => {
  const { log, projector, onOutcome } = options;
  if (typeof log?.append !== 'function') throw new TypeError('log must have an append method');
  const { scheme, keys, insecure, hook } = verificationOf(options);
  const standard = scheme.kind === 'standard-webhooks';
  const deliveryHeader = standard
    ? STANDARD_WEBHOOKS_HEADERS.id
    : headerName(options.deliveryHeader ?? DEFAULT_DELIVERY_HEADER, 'deliveryHeader');
  return {
    log,
    scheme,
    keys,
    insecure,
    hook,
    deliveryHeader,
    requireId: standard || options.requireDeliveryId === true,
    maxBodyBytes: byteLimit(options.maxBodyBytes, DEFAULT_MAX_EVENT_BYTES, 'maxBodyBytes'),
    retryAfter: byteLimit(options.retryAfterSeconds, 5, 'retryAfterSeconds'),
    now: options.now ?? (() => new Date()),
    live: projector === undefined ? undefined : new LiveApplier(projector),
    tracing: options.tracing ?? NO_TRACING,
    onOutcome,
    shownHeaders: standard ? [deliveryHeader, 'svix-id'] : [deliveryHeader],
  };
};

/** The delivery id the request shows, for the outcome of an answer given before it is checked. */
export const shownId = (context: WebhookContext, headers: WebhookHeaders): string | undefined => {
  for (const header of context.shownHeaders) {
    const id = deliveryIdOf(headers, header, false);
    if (id.isOk() && id.value !== undefined) return id.value;
  }
  return undefined;
};

/** Tells `onOutcome` what was decided, and answers with it. */
export const decided = (
  context: WebhookContext,
  outcome: WebhookOutcome,
  response: WebhookResponse,
): WebhookResponse => {
  try {
    context.onOutcome?.(outcome);
  } catch {
    // A metrics callback must not change the answer the sender gets.
  }
  // Built member by member, not spread: once per delivery.
  return { status: response.status, headers: response.headers, body: response.body, outcome };
};

// Reasons may quote the body (JSON.parse does) and end up in a terminal (serve's log lines).

/** A 4xx the sender should not retry as is. */
export const reject = (
  context: WebhookContext,
  status: 400 | 401 | 405 | 413,
  quoting: string,
  deliveryId?: string,
): WebhookResponse => {
  const reason = visibleText(quoting);
  return decided(
    context,
    { kind: 'rejected', status, reason, deliveryId },
    rejectedAnswer(status, reason),
  );
};

/** A 403: the event names a company its key may not speak for. */
export const forbid = (
  context: WebhookContext,
  quoting: string,
  deliveryId: string | undefined,
): WebhookResponse => {
  const reason = visibleText(quoting);
  return decided(
    context,
    { kind: 'forbidden', status: 403, reason, deliveryId },
    rejectedAnswer(403, reason),
  );
};

/** A 503 with `Retry-After`: nothing is lost, the sender retries. */
export const unavailable = (
  context: WebhookContext,
  quoting: string,
  deliveryId: string | undefined,
): WebhookResponse => {
  const reason = visibleText(quoting);
  return decided(
    context,
    { kind: 'unavailable', status: 503, reason, deliveryId },
    unavailableAnswer(reason, context.retryAfter),
  );
};
