/**
 * The node:http glue: reads a request's body with a cap, hands it to a
 * {@link WebhookHandler}, writes the answer. Typed structurally, so the
 * declarations need no `@types/node`: an `IncomingMessage` and a
 * `ServerResponse` fit.
 */
import type { NodeIncoming, NodeOutgoing } from '../engine/node-http.js';
import { unavailableAnswer } from './webhook-answers.js';
import type { WebhookHandler, WebhookOutcome, WebhookRequest } from './webhook-types.js';

/** The request the glue reads: node:http's (see `NodeIncoming`, the same shape in `signfold/http`). */
export type NodeWebhookRequest = NodeIncoming;

/** The response the glue writes its text answers to (see `NodeOutgoing`). */
export type NodeWebhookResponse = NodeOutgoing<string>;

type BodyRead =
  | { readonly kind: 'body'; readonly body: Uint8Array }
  | { readonly kind: 'over'; readonly limit: number }
  | { readonly kind: 'gone' }
  | { readonly kind: 'consumed' };

/** Reads the whole body, or stops at `limit` bytes (keeping none of it), or notes a lost client. */
const readBody = (request: NodeWebhookRequest, limit: number): Promise<BodyRead> =>
  new Promise((resolve) => {
    if (request.readableEnded === true) {
      resolve({ kind: 'consumed' });
      return;
    }
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      // Drain what arrives until the answer closes the connection; keep none of it.
      request.resume();
      resolve({ kind: 'over', limit });
      return;
    }
    let chunks: Uint8Array[] = [];
    let size = 0;
    let over = false;
    request.on('data', (chunk) => {
      if (over) return;
      size += chunk.byteLength;
      if (size > limit) {
        over = true;
        chunks = [];
        resolve({ kind: 'over', limit });
      } else {
        chunks.push(chunk);
      }
    });
    request.on('end', () => resolve({ kind: 'body', body: Buffer.concat(chunks) }));
    request.on('aborted', () => resolve({ kind: 'gone' }));
    // After 'end' this changes nothing: a promise settles once.
    request.on('close', () => resolve({ kind: 'gone' }));
    request.on('error', () => resolve({ kind: 'gone' }));
  });

/**
 * The body was read before the glue got the request (a body parser ran on
 * the route): the bytes to verify are gone. A setup error, not the sender's:
 * 503, so the sender retries once it is fixed, and nothing is lost.
 */
const answerConsumed = (response: NodeWebhookResponse): WebhookOutcome => {
  const reason = 'the request body was read before handleNodeRequest (a body parser ran first)';
  const answer = unavailableAnswer(reason, 5);
  if (!response.headersSent) {
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body);
  }
  return { kind: 'unavailable', status: 503, reason, deliveryId: undefined };
};

/**
 * Answers one node:http request with `handler`: reads the body (at most
 * `maxBodyBytes`: a larger one, by its `Content-Length` or by what arrives,
 * is answered 413 at once with `connection: close`, without buffering the
 * rest), calls the handler, writes its answer. Resolves with what was
 * decided, `undefined` when the client went away before the body ended.
 * Never throws or rejects. Routing (which path is the endpoint) is the
 * caller's.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createMemoryEventLog } from 'signfold/file';
 * import { createWebhookHandler, handleNodeRequest } from 'signfold/webhooks';
 *
 * const handler = createWebhookHandler({ log: createMemoryEventLog(), secrets: ['s3cret'] });
 * const server = createServer((request, response) => {
 *   void handleNodeRequest(handler, request, response, { maxBodyBytes: 256 * 1024 });
 * });
 * server.listen(0, '127.0.0.1', () => server.close());
 * ```
 */
export const handleNodeRequest = async (
  handler: WebhookHandler,
  request: NodeWebhookRequest,
  response: NodeWebhookResponse,
  options: { readonly maxBodyBytes: number },
): Promise<WebhookOutcome | undefined> => {
  try {
    const read = await readBody(request, options.maxBodyBytes);
    if (read.kind === 'gone') return undefined;
    if (read.kind === 'consumed') return answerConsumed(response);
    // Built member by member, not with conditional spreads: once per delivery.
    const delivered: { -readonly [K in keyof WebhookRequest]: WebhookRequest[K] } = {
      method: request.method ?? '',
      headers: request.headers,
      body: read.kind === 'body' ? read.body : new Uint8Array(0),
    };
    if (typeof request.url === 'string') delivered.url = request.url;
    if (read.kind === 'over') delivered.overLimit = read.limit;
    const answer = await handler(delivered);
    if (!response.headersSent) {
      const headers =
        read.kind === 'over' ? { ...answer.headers, connection: 'close' } : answer.headers;
      response.writeHead(answer.status, headers);
      response.end(answer.body);
    }
    return answer.outcome;
  } catch {
    // The socket failed under us: there is no one left to answer.
    return undefined;
  }
};
