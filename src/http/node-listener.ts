/**
 * The node:http glue of every fetch handler: a request of `node:http` (or
 * Express, whose requests are node's) made a WHATWG `Request`, the handler's
 * `Response` written back. Typed structurally, so the declarations need no
 * `@types/node`: an `IncomingMessage` and a `ServerResponse` fit.
 */
import type { FetchHandler, FetchRequest, FetchResponse } from '../engine/fetch-types.js';
import { DEFAULT_MAX_EVENT_BYTES } from '../engine/log-limits.js';
import type { NodeIncoming, NodeOutgoing } from '../engine/node-http.js';

/** Options of {@link nodeListener}. */
export interface NodeListenerOptions {
  /**
   * The largest body read, in bytes (default 256 KiB, the webhook handler's
   * default): a larger one is answered 413 with `connection: close`, without
   * buffering the rest. Keep it at least the handler's own limit.
   */
  readonly maxBodyBytes?: number;
}

type BodyRead =
  | { readonly kind: 'body'; readonly body: Uint8Array | undefined }
  | { readonly kind: 'over' }
  | { readonly kind: 'gone' }
  | { readonly kind: 'consumed' };

const NO_BODY = new Set(['GET', 'HEAD']);

/** Reads the whole body, or stops at `limit` bytes (keeping none of it), or notes a lost client. */
const readBody = (incoming: NodeIncoming, limit: number): Promise<BodyRead> =>
  new Promise((resolve) => {
    const bodiless = NO_BODY.has(incoming.method ?? '');
    if (incoming.readableEnded === true) {
      resolve(bodiless ? { kind: 'body', body: undefined } : { kind: 'consumed' });
      return;
    }
    const declared = Number(incoming.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      // Drain what arrives until the answer closes the connection; keep none of it.
      incoming.resume();
      resolve({ kind: 'over' });
      return;
    }
    let chunks: Uint8Array[] = [];
    let size = 0;
    let over = false;
    incoming.on('data', (chunk) => {
      if (over) return;
      size += chunk.byteLength;
      if (size <= limit) chunks.push(chunk);
      else {
        over = true;
        chunks = [];
        resolve({ kind: 'over' });
      }
    });
    incoming.on('end', () =>
      resolve({ kind: 'body', body: bodiless ? undefined : Buffer.concat(chunks) }),
    );
    incoming.on('aborted', () => resolve({ kind: 'gone' }));
    // After 'end' this changes nothing: a promise settles once.
    incoming.on('close', () => resolve({ kind: 'gone' }));
    incoming.on('error', () => resolve({ kind: 'gone' }));
  });

/** The headers of `incoming`, repeated ones appended in order. */
const headersOf = (incoming: NodeIncoming): Headers => {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (typeof value === 'string') headers.append(name, value);
    else if (value !== undefined) for (const one of value) headers.append(name, one);
  }
  return headers;
};

/** An absolute URL for the target of `incoming`, on the host it names. */
const urlOf = (incoming: NodeIncoming): string => {
  const target = incoming.url ?? '/';
  const host = incoming.headers.host;
  const base = `http://${typeof host === 'string' && host !== '' ? host : 'localhost'}`;
  try {
    // `//x/path` is a path whose first segment is empty, never a host `x`.
    return new URL(target.startsWith('//') ? `${base}${target}` : target, base).href;
  } catch {
    return new URL(target.startsWith('/') ? target : `/${target}`, 'http://localhost').href;
  }
};

/** `incoming` as a WHATWG `Request` with `body`; throws on headers or a URL that cannot be one. */
export const requestOf = (incoming: NodeIncoming, body?: Uint8Array): FetchRequest =>
  new Request(urlOf(incoming), {
    method: incoming.method ?? 'GET',
    headers: headersOf(incoming),
    ...(body === undefined ? {} : { body }),
  });

/** Writes `response` to `outgoing` (nothing when an answer was already started). */
export const writeResponse = async (
  response: FetchResponse,
  outgoing: NodeOutgoing,
  extra: Record<string, string> = {},
): Promise<void> => {
  const body = new Uint8Array(await response.arrayBuffer());
  if (outgoing.headersSent) return;
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  outgoing.writeHead(response.status, { ...headers, ...extra });
  outgoing.end(body);
};

const jsonAnswer = (status: number, error: string): FetchResponse =>
  new Response(`${JSON.stringify({ error })}\n`, {
    status,
    headers: { 'content-type': 'application/json' },
  });

/** Answers one request; resolves once the answer is written (or the client is gone). */
const answer = async (
  handler: FetchHandler,
  incoming: NodeIncoming,
  outgoing: NodeOutgoing,
  limit: number,
): Promise<void> => {
  const read = await readBody(incoming, limit);
  if (read.kind === 'gone') return;
  if (read.kind === 'over') {
    const refused = jsonAnswer(413, `body larger than ${limit} bytes`);
    await writeResponse(refused, outgoing, { connection: 'close' });
    return;
  }
  if (read.kind === 'consumed') {
    // A setup error, not the client's: 503, so a webhook sender retries once it is fixed.
    const reason = 'the request body was read before nodeListener (a body parser ran first)';
    await writeResponse(jsonAnswer(503, reason), outgoing, { 'retry-after': '5' });
    return;
  }
  let request: FetchRequest;
  try {
    request = requestOf(incoming, read.body);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    await writeResponse(jsonAnswer(400, `malformed request: ${reason}`), outgoing);
    return;
  }
  await writeResponse(await handler.fetch(request), outgoing);
};

/**
 * A `node:http` request listener for a fetch handler: `createServer(nodeListener(handler))`,
 * or `app.use('/path', nodeListener(handler))` in Express (mount it before any
 * body parser). The body is read with a cap ({@link NodeListenerOptions.maxBodyBytes});
 * whatever fails is answered (400, 413, 500, 503 with a JSON `error`), never thrown.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createHealthHandler, nodeListener } from 'signfold/http';
 *
 * const server = createServer(nodeListener(createHealthHandler()));
 * server.listen(0, '127.0.0.1', async () => {
 *   const address = server.address();
 *   const port = typeof address === 'object' && address !== null ? address.port : 0;
 *   const answer = await fetch(`http://127.0.0.1:${port}/healthz`);
 *   console.log(answer.status, (await answer.text()).trim()); // 200 {"status":"ok"}
 *   server.close();
 * });
 * ```
 */
export const nodeListener = (
  handler: FetchHandler,
  options: NodeListenerOptions = {},
): ((incoming: NodeIncoming, outgoing: NodeOutgoing) => void) => {
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_EVENT_BYTES;
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`maxBodyBytes must be a whole number of bytes (got ${limit})`);
  }
  return (incoming, outgoing) => {
    answer(handler, incoming, outgoing, limit).catch(async (cause: unknown) => {
      const reason = cause instanceof Error ? cause.message : String(cause);
      await writeResponse(jsonAnswer(500, `internal error: ${reason}`), outgoing).catch(
        () => undefined,
      );
    });
  };
};
