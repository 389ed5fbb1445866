/**
 * The responses of the handler, one per outcome: small JSON documents a
 * sender's logs can show, with the headers HTTP asks for.
 */
import type { WebhookResponse } from './webhook-types.js';

const JSON_TYPE = { 'content-type': 'application/json' };

const answer = (
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): WebhookResponse => ({
  status,
  headers: { ...JSON_TYPE, ...headers },
  body: `${JSON.stringify(body)}\n`,
});

/** 200 after the durable append; `outcome` is what the projector did, when one runs. */
export const storedAnswer = (position: number, outcome: string | undefined): WebhookResponse =>
  answer(
    200,
    outcome === undefined
      ? { position, duplicate: false }
      : { position, duplicate: false, outcome },
  );

/** 200: stored before, at `position`. */
export const duplicateAnswer = (position: number): WebhookResponse =>
  answer(200, { position, duplicate: true });

/** 4xx: refused (403: by a secret bound to other companies), nothing stored. */
export const rejectedAnswer = (
  status: 400 | 401 | 403 | 405 | 413,
  reason: string,
): WebhookResponse => answer(status, { error: reason }, status === 405 ? { allow: 'POST' } : {});

/** 503: storage failed, nothing stored; the sender retries after `retryAfter` seconds. */
export const unavailableAnswer = (reason: string, retryAfter: number): WebhookResponse =>
  answer(503, { error: reason }, { 'retry-after': String(retryAfter) });
