/**
 * `createWebhookHandler`: one webhook delivery in (method, headers, raw body
 * bytes), one answer out, tied to no framework. The order of the checks is
 * the contract of docs/webhooks.md: method (405), size (413), signature
 * (401), delivery id (400), JSON (400), then the durable append (2xx only
 * once it resolved; 503 when storage failed).
 */

import type { Result } from 'neverthrow';
import type { AppendOutcome, LogFailure } from '../engine/event-log.js';
import type { FetchHandler, FetchRequest } from '../engine/fetch-types.js';
import type { JsonText } from '../engine/json-text.js';
import { eventAttributes, TRACE_ATTRIBUTE } from '../engine/trace-attributes.js';
import type { TraceSpan, Tracing } from '../engine/tracing.js';
import { companyAllowed } from './company-binding.js';
import { checkedId } from './delivery-id.js';
import { verifyStandardWebhooks } from './standard-webhooks.js';
import { runVerificationHook } from './verification-hook.js';
import { verifySignature } from './verify-signature.js';
import { duplicateAnswer, storedAnswer } from './webhook-answers.js';
import { jsonBodyOf } from './webhook-body.js';
import {
  decided,
  forbid,
  reject,
  shownId,
  unavailable,
  type WebhookContext,
  webhookContextOf,
} from './webhook-context.js';
import { answerFetch } from './webhook-fetch.js';
import type {
  WebhookHandler,
  WebhookHandlerOptions,
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

/** The append's span, a child of the delivery's; the delivery's learns what the body says. */
const startAppendSpan = (
  tracing: Tracing,
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

/**
 * Appends a checked body durably, applies it live once stored (when a projector is given), and
 * answers: 2xx only once the append resolved, 4xx when the log refuses the event itself, 503
 * when storage failed.
 */
const appendDelivery = async (
  context: WebhookContext,
  body: JsonText,
  deliveryId: string | undefined,
  receivedAt: Date,
  delivery: TraceSpan | undefined,
): Promise<WebhookResponse> => {
  const { live } = context;
  const span =
    delivery === undefined
      ? undefined
      : startAppendSpan(context.tracing, delivery, body, deliveryId);
  const ticket = live?.begin();
  const started = performance.now();
  let appended: Result<AppendOutcome, LogFailure>;
  try {
    appended = await context.log.append(
      body,
      deliveryId === undefined ? { receivedAt } : { deliveryId, receivedAt },
    );
  } catch (cause) {
    span?.fail('append-failed', cause instanceof Error ? cause.message : String(cause));
    span?.end();
    if (ticket !== undefined) void live?.settle(ticket, undefined);
    const message = `append failed: ${cause instanceof Error ? cause.message : String(cause)}`;
    return unavailable(context, message, deliveryId);
  }
  const appendMs = performance.now() - started;
  if (span !== undefined) endAppendSpan(span, appended);
  if (appended.isErr()) {
    if (ticket !== undefined) void live?.settle(ticket, undefined);
    const status = refusal(appended.error);
    if (status !== undefined) return reject(context, status, appended.error.message, deliveryId);
    return unavailable(context, appended.error.message, deliveryId);
  }
  const stored: AppendOutcome = appended.value;
  if (stored.kind === 'duplicate') {
    if (ticket !== undefined) void live?.settle(ticket, undefined);
    const { position } = stored;
    const outcome = {
      kind: 'duplicate',
      deliveryId: deliveryId ?? '',
      position,
      appendMs,
    } as const;
    return decided(context, outcome, duplicateAnswer(position));
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
  const outcome = { kind: 'stored', deliveryId, position, appendMs } as const;
  return decided(context, outcome, storedAnswer(position, applied));
};

/** The verification of a request by the `verify` hook: what passed, or the answer that ends it. */
const verifyByHook = async (
  context: WebhookContext,
  request: WebhookRequest,
  id: string | undefined,
): Promise<Passed | WebhookResponse> => {
  const { hook } = context;
  if (hook === undefined) return {};
  const { method, headers, body } = request;
  const url = typeof request.url === 'string' ? request.url : '';
  const ran = await runVerificationHook(hook, { method, url, headers, body });
  if (ran.isErr()) return unavailable(context, ran.error.reason, id);
  const decision = ran.value;
  if (decision.kind === 'refused') return reject(context, 401, decision.reason, id);
  if (decision.kind === 'reply') {
    const outcome = { kind: 'answered', status: decision.reply.status, deliveryId: id } as const;
    return decided(context, outcome, decision.reply);
  }
  return {
    deliveryId: decision.deliveryId,
    bindings: decision.companies === undefined ? undefined : [decision.companies],
    reply: decision.reply,
  };
};

/**
 * The built-in verification: synchronous, so a delivery does not wait a
 * turn of the microtask queue (and a promise) for work that never waits.
 */
const verifyBuiltIn = (
  context: WebhookContext,
  request: WebhookRequest,
  receivedAt: Date,
  id: string | undefined,
): Passed | WebhookResponse => {
  const { scheme, keys } = context;
  if (context.insecure) return {};
  const { headers, body } = request;
  if (scheme.kind === 'standard-webhooks') {
    const verified = verifyStandardWebhooks(scheme, keys, headers, body, receivedAt);
    if (verified.isErr()) return reject(context, 401, verified.error, id);
    const { deliveryId, matched } = verified.value;
    return { deliveryId, bindings: matched.map((key) => key.companies) };
  }
  const verified = verifySignature(scheme, keys, headers, body, receivedAt);
  if (verified.isErr()) return reject(context, 401, verified.error, id);
  return { bindings: verified.value.map((key) => key.companies) };
};

/** One request through the checks, in the order of the contract (see the module comment). */
const handle = async (
  context: WebhookContext,
  request: WebhookRequest,
  delivery: TraceSpan | undefined,
): Promise<WebhookResponse> => {
  const { hook, maxBodyBytes } = context;
  const shown = shownId(context, request.headers);
  const post = request.method.toUpperCase() === 'POST';
  const notPost = () =>
    reject(context, 405, `method ${request.method} not allowed: use POST`, shown);
  if (!post && hook === undefined) return notPost();
  const size = request.body.byteLength;
  const limit = request.overLimit ?? (size > maxBodyBytes ? maxBodyBytes : undefined);
  if (limit !== undefined) return reject(context, 413, `body larger than ${limit} bytes`, shown);
  const receivedAt = context.now();
  const passed =
    hook === undefined
      ? verifyBuiltIn(context, request, receivedAt, shown)
      : await verifyByHook(context, request, shown);
  if ('status' in passed) return passed;
  if (!post) return notPost();
  const id = checkedId(
    passed.deliveryId,
    context.deliveryHeader,
    context.requireId,
    request.headers,
  );
  if (id.isErr()) return reject(context, 400, id.error, shown);
  const body = jsonBodyOf(request.body);
  if (body.isErr()) return reject(context, 400, body.error, id.value);
  if (passed.bindings !== undefined) {
    const allowed = companyAllowed(passed.bindings, body.value.value);
    if (allowed.isErr()) return forbid(context, allowed.error, id.value);
  }
  const stored = await appendDelivery(context, body.value, id.value, receivedAt, delivery);
  const { reply } = passed;
  const { outcome } = stored;
  if (reply === undefined || stored.status !== 200 || outcome === undefined) return stored;
  return { ...reply, outcome };
};

/** {@link handle}, with a request that is not even the shape its type says answered 400. */
const answer = async (
  context: WebhookContext,
  request: WebhookRequest,
  delivery: TraceSpan | undefined,
): Promise<WebhookResponse> => {
  try {
    return await handle(context, request, delivery);
  } catch (cause) {
    // No headers, a body that is not bytes, ...
    const reason = `malformed request: ${cause instanceof Error ? cause.message : String(cause)}`;
    return reject(context, 400, reason);
  }
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
  const context = webhookContextOf(options);
  const handler: WebhookHandler = context.tracing.enabled
    ? traced(context)
    : (request) => answer(context, request, undefined);
  return Object.assign(handler, {
    fetch: (request: FetchRequest) => answerFetch(handler, request, context.maxBodyBytes),
  });
};

/** {@link answer} with each request in a `signfold.delivery` span. */
const traced =
  (context: WebhookContext): WebhookHandler =>
  async (request) => {
    let shown: string | undefined;
    try {
      shown = shownId(context, request.headers);
    } catch {
      // Headers that are not even headers: answered 400 below, in a trace of its own.
    }
    const span = context.tracing.startSpan('signfold.delivery', {
      kind: 'server',
      deliveryId: shown,
      attributes: {
        [TRACE_ATTRIBUTE.httpMethod]: typeof request.method === 'string' ? request.method : '',
        [TRACE_ATTRIBUTE.deliveryId]: shown,
      },
    });
    const response = await answer(context, request, span);
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
