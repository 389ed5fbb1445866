/**
 * `createWebhookHandler`: one webhook delivery in (method, headers, raw body
 * bytes), one answer out, tied to no framework. The order of the checks is
 * the contract of docs/webhooks.md: method (405), size (413), signature
 * (401), delivery id (400), JSON (400), then the durable append (2xx only
 * once it resolved; 503 when storage failed).
 */

import type { Result } from 'neverthrow';
import { visibleText } from '../core/visible-text.js';
import type { AppendOutcome, LogFailure } from '../engine/event-log.js';
import type { FetchHandler, FetchRequest } from '../engine/fetch-types.js';
import type { JsonText } from '../engine/json-text.js';
import { byteLimit, DEFAULT_MAX_EVENT_BYTES } from '../engine/log-limits.js';
import { eventAttributes, TRACE_ATTRIBUTE } from '../engine/trace-attributes.js';
import { NO_TRACING, type TraceSpan, type Tracing } from '../engine/tracing.js';
import { companyAllowed } from './company-binding.js';
import { checkedId, DEFAULT_DELIVERY_HEADER, deliveryIdOf } from './delivery-id.js';
import { LiveApplier } from './live-apply.js';
import { headerName, resolveScheme } from './signature-options.js';
import { STANDARD_WEBHOOKS_HEADERS, verifyStandardWebhooks } from './standard-webhooks.js';
import { runVerificationHook } from './verification-hook.js';
import { verifySignature } from './verify-signature.js';
import { verifyingKeys } from './verifying-keys.js';
import {
  duplicateAnswer,
  rejectedAnswer,
  storedAnswer,
  unavailableAnswer,
} from './webhook-answers.js';
import { jsonBodyOf } from './webhook-body.js';
import { answerFetch } from './webhook-fetch.js';
import type {
  WebhookHandler,
  WebhookHandlerOptions,
  WebhookHeaders,
  WebhookOutcome,
  WebhookRequest,
  WebhookResponse,
} from './webhook-types.js';

/** Log errors that say the event itself cannot be stored: retrying would not help. */
const refusal = (error: LogFailure): 400 | 413 | undefined =>
  error.kind === 'too-large' ? 413 : error.kind === 'not-serializable' ? 400 : undefined;

/** What verification let through: the delivery id it read, the keys' companies, a reply. */
interface Passed {
  /** Set when the scheme (or the hook) read the id itself; otherwise the delivery header's. */
  readonly deliveryId?: string | undefined;
  /** The companies of each verifying key (`undefined` entry: any); `undefined`: not checked. */
  readonly bindings?: readonly (ReadonlySet<number> | undefined)[] | undefined;
  /** The hook's answer to a stored (or duplicate) delivery, instead of the JSON one. */
  readonly reply?: WebhookResponse | undefined;
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

/**
 * Creates the handler of a webhook endpoint: verifies the signature, checks
 * the body, appends it durably to `log` as received (its text, not a
 * re-serialization), optionally applies it live to `projector`, and answers.
 * Call it with the request's parts (any framework), or use its `fetch`
 * (a WHATWG `Request` in, a `Response` out; the body read with
 * `maxBodyBytes` as its cap) where the framework speaks fetch. Throws only on invalid options (a programmer's error); a request never
 * makes it throw or reject, and bad input never gets a 500.
 *
 * @example
 * ```ts
 * import { createMemoryEventLog } from 'signfold/file';
 * import { createWebhookHandler, signWebhookBody } from 'signfold/webhooks';
 *
 * const handler = createWebhookHandler({ log: createMemoryEventLog(), secrets: ['s3cret'] });
 * const body = new TextEncoder().encode('{"type":"template-deleted"}');
 * const headers = { 'x-signature': signWebhookBody(body, 's3cret'), 'x-delivery-id': 'd-1' };
 * const answer = await handler({ method: 'POST', headers, body });
 * console.log(answer.status, answer.body.trim()); // 200 {"position":1,"duplicate":false}
 * ```
 */
export const createWebhookHandler = (
  options: WebhookHandlerOptions,
): WebhookHandler & FetchHandler => {
  const { log, projector, onOutcome } = options;
  if (typeof log?.append !== 'function') throw new TypeError('log must have an append method');
  const { scheme, keys, insecure, hook } = verificationOf(options);
  const standard = scheme.kind === 'standard-webhooks';
  const deliveryHeader = standard
    ? STANDARD_WEBHOOKS_HEADERS.id
    : headerName(options.deliveryHeader ?? DEFAULT_DELIVERY_HEADER, 'deliveryHeader');
  const requireId = standard || options.requireDeliveryId === true;
  const maxBodyBytes = byteLimit(options.maxBodyBytes, DEFAULT_MAX_EVENT_BYTES, 'maxBodyBytes');
  const retryAfter = byteLimit(options.retryAfterSeconds, 5, 'retryAfterSeconds');
  const now = options.now ?? (() => new Date());
  const live = projector === undefined ? undefined : new LiveApplier(projector);
  const tracing = options.tracing ?? NO_TRACING;

  const decided = (outcome: WebhookOutcome, response: WebhookResponse): WebhookResponse => {
    try {
      onOutcome?.(outcome);
    } catch {
      // A metrics callback must not change the answer the sender gets.
    }
    // Built member by member, not spread: once per delivery.
    return { status: response.status, headers: response.headers, body: response.body, outcome };
  };
  // Reasons may quote the body (JSON.parse does) and end up in a terminal (serve's log lines).
  const reject = (status: 400 | 401 | 405 | 413, quoting: string, deliveryId?: string) => {
    const reason = visibleText(quoting);
    return decided(
      { kind: 'rejected', status, reason, deliveryId },
      rejectedAnswer(status, reason),
    );
  };
  const forbid = (quoting: string, deliveryId: string | undefined) => {
    const reason = visibleText(quoting);
    return decided(
      { kind: 'forbidden', status: 403, reason, deliveryId },
      rejectedAnswer(403, reason),
    );
  };
  const unavailable = (quoting: string, deliveryId: string | undefined) => {
    const reason = visibleText(quoting);
    return decided(
      { kind: 'unavailable', status: 503, reason, deliveryId },
      unavailableAnswer(reason, retryAfter),
    );
  };
  // Once per handler, not once per request.
  const shownHeaders = standard ? [deliveryHeader, 'svix-id'] : [deliveryHeader];
  /** The delivery id the request shows, for the outcome of an answer given before it is checked. */
  const shownId = (headers: WebhookHeaders): string | undefined => {
    for (const header of shownHeaders) {
      const id = deliveryIdOf(headers, header, false);
      if (id.isOk() && id.value !== undefined) return id.value;
    }
    return undefined;
  };

  const append = async (
    body: JsonText,
    deliveryId: string | undefined,
    receivedAt: Date,
    delivery: TraceSpan | undefined,
  ): Promise<WebhookResponse> => {
    const span = delivery === undefined ? undefined : startAppendSpan(delivery, body, deliveryId);
    const ticket = live?.begin();
    const started = performance.now();
    let appended: Awaited<ReturnType<typeof log.append>>;
    try {
      appended = await log.append(
        body,
        deliveryId === undefined ? { receivedAt } : { deliveryId, receivedAt },
      );
    } catch (cause) {
      span?.fail('append-failed', cause instanceof Error ? cause.message : String(cause));
      span?.end();
      if (ticket !== undefined) void live?.settle(ticket, undefined);
      return unavailable(
        `append failed: ${cause instanceof Error ? cause.message : String(cause)}`,
        deliveryId,
      );
    }
    const appendMs = performance.now() - started;
    if (span !== undefined) endAppendSpan(span, appended);
    if (appended.isErr()) {
      if (ticket !== undefined) void live?.settle(ticket, undefined);
      const status = refusal(appended.error);
      if (status !== undefined) return reject(status, appended.error.message, deliveryId);
      return unavailable(appended.error.message, deliveryId);
    }
    const stored: AppendOutcome = appended.value;
    if (stored.kind === 'duplicate') {
      if (ticket !== undefined) void live?.settle(ticket, undefined);
      const outcome = {
        kind: 'duplicate',
        deliveryId: deliveryId ?? '',
        position: stored.position,
        appendMs,
      } as const;
      return decided(outcome, duplicateAnswer(stored.position));
    }
    const { position } = stored;
    const applied =
      ticket === undefined
        ? undefined
        : await live?.settle(ticket, {
            position,
            event: body.value,
            receivedAt: stored.receivedAt,
            raw: body.text,
          });
    return decided(
      { kind: 'stored', deliveryId, position, appendMs },
      storedAnswer(position, applied),
    );
  };

  /** The append's span, a child of the delivery's; the delivery's learns what the body says. */
  const startAppendSpan = (
    delivery: TraceSpan,
    body: JsonText,
    deliveryId: string | undefined,
  ): TraceSpan => {
    const said = eventAttributes(body.value);
    delivery.setAttributes({ ...said, [TRACE_ATTRIBUTE.deliveryId]: deliveryId });
    return tracing.startSpan('signfold.append', {
      kind: 'producer',
      parent: delivery,
      attributes: { ...said, [TRACE_ATTRIBUTE.deliveryId]: deliveryId },
    });
  };

  /** The verification of a request by the `verify` hook: what passed, or the answer that ends it. */
  const verifyByHook = async (
    request: WebhookRequest,
    id: string | undefined,
  ): Promise<Passed | WebhookResponse> => {
    if (hook !== undefined) {
      const { method, headers, body } = request;
      const url = typeof request.url === 'string' ? request.url : '';
      const ran = await runVerificationHook(hook, { method, url, headers, body });
      if (ran.isErr()) return unavailable(ran.error.reason, id);
      const decision = ran.value;
      if (decision.kind === 'refused') return reject(401, decision.reason, id);
      if (decision.kind === 'reply') {
        return decided(
          { kind: 'answered', status: decision.reply.status, deliveryId: id },
          decision.reply,
        );
      }
      return {
        deliveryId: decision.deliveryId,
        bindings: decision.companies === undefined ? undefined : [decision.companies],
        reply: decision.reply,
      };
    }
    return {};
  };

  /**
   * The built-in verification: synchronous, so a delivery does not wait a
   * turn of the microtask queue (and a promise) for work that never waits.
   */
  const verifyBuiltIn = (
    request: WebhookRequest,
    receivedAt: Date,
    id: string | undefined,
  ): Passed | WebhookResponse => {
    if (insecure) return {};
    const { headers, body } = request;
    if (scheme.kind === 'standard-webhooks') {
      const verified = verifyStandardWebhooks(scheme, keys, headers, body, receivedAt);
      if (verified.isErr()) return reject(401, verified.error, id);
      const { deliveryId, matched } = verified.value;
      return { deliveryId, bindings: matched.map((key) => key.companies) };
    }
    const verified = verifySignature(scheme, keys, headers, body, receivedAt);
    if (verified.isErr()) return reject(401, verified.error, id);
    return { bindings: verified.value.map((key) => key.companies) };
  };

  const handle = async (
    request: WebhookRequest,
    delivery: TraceSpan | undefined,
  ): Promise<WebhookResponse> => {
    const shown = shownId(request.headers);
    const post = request.method.toUpperCase() === 'POST';
    const notPost = () => reject(405, `method ${request.method} not allowed: use POST`, shown);
    if (!post && hook === undefined) return notPost();
    const size = request.body.byteLength;
    const limit = request.overLimit ?? (size > maxBodyBytes ? maxBodyBytes : undefined);
    if (limit !== undefined) return reject(413, `body larger than ${limit} bytes`, shown);
    const receivedAt = now();
    const passed =
      hook === undefined
        ? verifyBuiltIn(request, receivedAt, shown)
        : await verifyByHook(request, shown);
    if ('status' in passed) return passed;
    if (!post) return notPost();
    const id = checkedId(passed.deliveryId, deliveryHeader, requireId, request.headers);
    if (id.isErr()) return reject(400, id.error, shown);
    const body = jsonBodyOf(request.body);
    if (body.isErr()) return reject(400, body.error, id.value);
    if (passed.bindings !== undefined) {
      const allowed = companyAllowed(passed.bindings, body.value.value);
      if (allowed.isErr()) return forbid(allowed.error, id.value);
    }
    const answer = await append(body.value, id.value, receivedAt, delivery);
    const { reply } = passed;
    const { outcome } = answer;
    if (reply === undefined || answer.status !== 200 || outcome === undefined) return answer;
    return { ...reply, outcome };
  };

  const answer = async (
    request: WebhookRequest,
    delivery: TraceSpan | undefined,
  ): Promise<WebhookResponse> => {
    try {
      return await handle(request, delivery);
    } catch (cause) {
      // A request that is not even the shape the type says (no headers, a body that is not bytes).
      return reject(
        400,
        `malformed request: ${cause instanceof Error ? cause.message : String(cause)}`,
      );
    }
  };
  const handler: WebhookHandler = tracing.enabled
    ? traced(tracing, shownId, answer)
    : (request) => answer(request, undefined);
  return Object.assign(handler, {
    fetch: (request: FetchRequest) => answerFetch(handler, request, maxBodyBytes),
  });
};

/** `answer` with each request in a `signfold.delivery` span. */
const traced =
  (
    tracing: Tracing,
    shownId: (headers: WebhookHeaders) => string | undefined,
    answer: (request: WebhookRequest, delivery: TraceSpan | undefined) => Promise<WebhookResponse>,
  ): WebhookHandler =>
  async (request) => {
    let shown: string | undefined;
    try {
      shown = shownId(request.headers);
    } catch {
      // Headers that are not even headers: answered 400 below, in a trace of its own.
    }
    const span = tracing.startSpan('signfold.delivery', {
      kind: 'server',
      deliveryId: shown,
      attributes: {
        [TRACE_ATTRIBUTE.httpMethod]: typeof request.method === 'string' ? request.method : '',
        [TRACE_ATTRIBUTE.deliveryId]: shown,
      },
    });
    const response = await answer(request, span);
    endDeliverySpan(span, response);
    return response;
  };

/** What the answer to a delivery says, on its span; a 5xx is an error (HTTP's conventions). */
const endDeliverySpan = (span: TraceSpan, response: WebhookResponse): void => {
  const outcome = response.outcome;
  span.setAttributes({
    [TRACE_ATTRIBUTE.httpStatus]: response.status,
    [TRACE_ATTRIBUTE.outcome]: outcome?.kind,
    [TRACE_ATTRIBUTE.deliveryId]: outcome?.deliveryId,
    [TRACE_ATTRIBUTE.position]:
      outcome?.kind === 'stored' || outcome?.kind === 'duplicate' ? outcome.position : undefined,
  });
  if (response.status >= 500) {
    const reason = outcome !== undefined && 'reason' in outcome ? outcome.reason : '';
    span.fail(String(response.status), reason);
  }
  span.end();
};

/** The append's outcome on its span: `appended`, `duplicate`, or the log's refusal. */
const endAppendSpan = (span: TraceSpan, appended: Result<AppendOutcome, LogFailure>): void => {
  if (appended.isErr()) {
    span.setAttributes({ [TRACE_ATTRIBUTE.outcome]: 'refused' });
    span.fail(appended.error.kind, appended.error.message);
  } else {
    span.setAttributes({
      [TRACE_ATTRIBUTE.outcome]: appended.value.kind,
      [TRACE_ATTRIBUTE.position]: appended.value.position,
    });
  }
  span.end();
};
