/**
 * `createWebhookHandler`: one webhook delivery in (method, headers, raw body
 * bytes), one answer out, tied to no framework. The order of the checks is
 * the contract of docs/webhooks.md: method (405), size (413), signature
 * (401), delivery id (400), JSON (400), then the durable append (2xx only
 * once it resolved; 503 when storage failed).
 */

import { visibleText } from '../core/visible-text.js';
import type { AppendOutcome, LogFailure } from '../engine/event-log.js';
import type { JsonText } from '../engine/json-text.js';
import { byteLimit, DEFAULT_MAX_EVENT_BYTES } from '../engine/log-limits.js';
import { DEFAULT_DELIVERY_HEADER, deliveryIdOf } from './delivery-id.js';
import { LiveApplier } from './live-apply.js';
import { headerName, signatureScheme } from './signature-options.js';
import { verifySignature } from './verify-signature.js';
import {
  duplicateAnswer,
  rejectedAnswer,
  storedAnswer,
  unavailableAnswer,
} from './webhook-answers.js';
import { jsonBodyOf } from './webhook-body.js';
import type {
  WebhookHandler,
  WebhookHandlerOptions,
  WebhookOutcome,
  WebhookResponse,
} from './webhook-types.js';

/** Log errors that say the event itself cannot be stored: retrying would not help. */
const refusal = (error: LogFailure): 400 | 413 | undefined =>
  error.kind === 'too-large' ? 413 : error.kind === 'not-serializable' ? 400 : undefined;

const checkSecrets = (options: WebhookHandlerOptions): readonly string[] => {
  const { secrets } = options;
  if (!Array.isArray(secrets) || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError('secrets must be an array of non-empty strings');
  }
  if (options.insecureNoSignature === true && secrets.length > 0) {
    throw new TypeError('insecureNoSignature: true verifies nothing, so secrets must be empty');
  }
  return [...secrets];
};

/**
 * Creates the handler of a webhook endpoint: verifies the signature, checks
 * the body, appends it durably to `log` as received (its text, not a
 * re-serialization), optionally applies it live to `projector`, and answers.
 * Throws only on invalid options (a programmer's error); a request never
 * makes it throw or reject, and bad input never gets a 500.
 *
 * @example
 * ```ts
 * import { createMemoryEventLog, createWebhookHandler, signWebhookBody } from 'signfold';
 *
 * const handler = createWebhookHandler({ log: createMemoryEventLog(), secrets: ['s3cret'] });
 * const body = new TextEncoder().encode('{"type":"template-deleted"}');
 * const headers = { 'x-signature': signWebhookBody(body, 's3cret'), 'x-delivery-id': 'd-1' };
 * const answer = await handler({ method: 'POST', headers, body });
 * console.log(answer.status, answer.body.trim()); // 200 {"position":1,"duplicate":false}
 * ```
 */
export const createWebhookHandler = (options: WebhookHandlerOptions): WebhookHandler => {
  const { log, projector, onOutcome } = options;
  if (typeof log?.append !== 'function') throw new TypeError('log must have an append method');
  const secrets = checkSecrets(options);
  const verify = options.insecureNoSignature !== true;
  const scheme = signatureScheme(options.signature);
  const deliveryHeader = headerName(
    options.deliveryHeader ?? DEFAULT_DELIVERY_HEADER,
    'deliveryHeader',
  );
  const requireId = options.requireDeliveryId === true;
  const maxBodyBytes = byteLimit(options.maxBodyBytes, DEFAULT_MAX_EVENT_BYTES, 'maxBodyBytes');
  const retryAfter = byteLimit(options.retryAfterSeconds, 5, 'retryAfterSeconds');
  const now = options.now ?? (() => new Date());
  const live = projector === undefined ? undefined : new LiveApplier(projector);

  const decided = (outcome: WebhookOutcome, response: WebhookResponse): WebhookResponse => {
    try {
      onOutcome?.(outcome);
    } catch {
      // A metrics callback must not change the answer the sender gets.
    }
    return { ...response, outcome };
  };
  // Reasons may quote the body (JSON.parse does) and end up in a terminal (serve's log lines).
  const reject = (status: 400 | 401 | 405 | 413, quoting: string, deliveryId?: string) => {
    const reason = visibleText(quoting);
    return decided(
      { kind: 'rejected', status, reason, deliveryId },
      rejectedAnswer(status, reason),
    );
  };
  const unavailable = (quoting: string, deliveryId: string | undefined) => {
    const reason = visibleText(quoting);
    return decided(
      { kind: 'unavailable', status: 503, reason, deliveryId },
      unavailableAnswer(reason, retryAfter),
    );
  };

  const append = async (
    body: JsonText,
    deliveryId: string | undefined,
    receivedAt: Date,
  ): Promise<WebhookResponse> => {
    const ticket = live?.begin();
    const started = performance.now();
    let appended: Awaited<ReturnType<typeof log.append>>;
    try {
      appended = await log.append(
        body,
        deliveryId === undefined ? { receivedAt } : { deliveryId, receivedAt },
      );
    } catch (cause) {
      if (ticket !== undefined) void live?.settle(ticket, undefined);
      return unavailable(
        `append failed: ${cause instanceof Error ? cause.message : String(cause)}`,
        deliveryId,
      );
    }
    const appendMs = performance.now() - started;
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

  const handle: WebhookHandler = async (request) => {
    if (request.method.toUpperCase() !== 'POST')
      return reject(405, `method ${request.method} not allowed: use POST`);
    const size = request.body.byteLength;
    const limit = request.overLimit ?? (size > maxBodyBytes ? maxBodyBytes : undefined);
    if (limit !== undefined) return reject(413, `body larger than ${limit} bytes`);
    const receivedAt = now();
    if (verify) {
      const verified = verifySignature(scheme, secrets, request.headers, request.body, receivedAt);
      if (verified.isErr()) return reject(401, verified.error);
    }
    const id = deliveryIdOf(request.headers, deliveryHeader, requireId);
    if (id.isErr()) return reject(400, id.error);
    const body = jsonBodyOf(request.body);
    if (body.isErr()) return reject(400, body.error, id.value);
    return append(body.value, id.value, receivedAt);
  };

  return async (request) => {
    try {
      return await handle(request);
    } catch (cause) {
      // A request that is not even the shape the type says (no headers, a body that is not bytes).
      return reject(
        400,
        `malformed request: ${cause instanceof Error ? cause.message : String(cause)}`,
      );
    }
  };
};
