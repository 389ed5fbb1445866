/**
 * The fetch glue of the webhook handler: a WHATWG `Request` in, a
 * `Response` out, for Hono, Bun, Deno and edge runtimes. The body is read
 * with the handler's cap: a larger one, by its `Content-Length` or by what
 * arrives, is not buffered past the cap, and goes to the handler as
 * `overLimit` so it answers 413 (and counts the outcome) as on every path.
 */
import type { FetchRequest, FetchResponse } from '../engine/fetch-types.js';
import type { WebhookRequest, WebhookResponse } from './webhook-types.js';

type BodyRead = { readonly kind: 'body'; readonly body: Uint8Array } | { readonly kind: 'over' };

/** Joins `chunks` of `size` bytes in all. */
const joined = (chunks: readonly Uint8Array[], size: number): Uint8Array => {
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
};

/** Reads the body of `request`, stopping (and cancelling the rest) past `limit` bytes. */
const readBody = async (request: Request, limit: number): Promise<BodyRead> => {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  const stream = request.body;
  if (Number.isFinite(declared) && declared > limit) {
    await stream?.cancel().catch(() => undefined);
    return { kind: 'over' };
  }
  if (stream === null) return { kind: 'body', body: new Uint8Array(0) };
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { kind: 'body', body: joined(chunks, size) };
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return { kind: 'over' };
    }
    chunks.push(value);
  }
};

/** The request target as `handleNodeRequest` gives it: the path and the query string. */
const targetOf = (url: string): string => {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
};

/**
 * Answers `request` with `handler`, reading at most `maxBodyBytes` of its
 * body. Never rejects: a body that cannot be read (the client went away) is
 * answered 400, which no one is left to read.
 */
export const answerFetch = async (
  handler: (request: WebhookRequest) => Promise<WebhookResponse>,
  request: FetchRequest,
  maxBodyBytes: number,
): Promise<FetchResponse> => {
  let read: BodyRead;
  try {
    read = await readBody(request, maxBodyBytes);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return Response.json({ error: `the body could not be read: ${reason}` }, { status: 400 });
  }
  // Built member by member, not with conditional spreads: once per delivery.
  const delivered: { -readonly [K in keyof WebhookRequest]: WebhookRequest[K] } = {
    method: request.method,
    headers: request.headers,
    body: read.kind === 'body' ? read.body : new Uint8Array(0),
    url: targetOf(request.url),
  };
  if (read.kind === 'over') delivered.overLimit = maxBodyBytes;
  const answer = await handler(delivered);
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
};
