/**
 * The read API and live page of `signfold serve`: `GET /api/sign-requests/:id`,
 * `GET /api/sign-requests?…` and `GET /report`, behind bearer tokens bound
 * to companies. Every path under `/api/` and `/report` asks for a token
 * first (401), then its budget (429), and only then looks at the request:
 * without a token nothing, not even which paths exist, can be learnt. A
 * record of another company is answered as one that does not exist (404,
 * the same body), so ids do not leak.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { idOf, parseListQuery } from './list-query.js';
import { RateLimiter, REPORT_COST } from './rate-limiter.js';
import type { ReadModel } from './read-model.js';
import type { ReadTokens } from './read-tokens.js';

/** What a read route answered, for the request's log line. */
export interface ReadAnswer {
  readonly status: number;
  readonly reason?: string;
}

/** The read routes of one server. */
export interface ReadRoutes {
  /** Whether `path` is one of the read API's (then {@link answer} answers it). */
  serves(path: string): boolean;
  /** Answers a request for a path it {@link serves}; never rejects. */
  answer(path: string, request: IncomingMessage, response: ServerResponse): Promise<ReadAnswer>;
}

/** Seconds a client should wait when the state cannot be read now (the database is down). */
const RETRY_AFTER_UNAVAILABLE = 5;

const LIST = '/api/sign-requests';
const ONE = /^\/api\/sign-requests\/([^/]*)$/;

// No answer of the API is cached anywhere on the way, nor sniffed into another type.
const PRIVATE = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

const send = (
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string>,
): void => {
  if (response.headersSent) return;
  response.writeHead(status, {
    ...PRIVATE,
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  response.end(request.method === 'HEAD' ? undefined : body);
};

const sendJson = (
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): ReadAnswer => {
  send(request, response, status, `${JSON.stringify(value)}\n`, {
    'content-type': 'application/json; charset=utf-8',
    ...headers,
  });
  return { status };
};

const NOT_FOUND = { error: 'not found' } as const;

/** The query string of a request target, without `?` and any fragment. */
const searchOf = (target: string | undefined): string => {
  const raw = target ?? '';
  const at = raw.indexOf('?');
  return at === -1 ? '' : (raw.slice(at + 1).split('#', 1)[0] ?? '');
};

/** The routes answering from `model` for the clients of `tokens`, limited by `limiter`. */
export const readRoutes = (
  model: ReadModel,
  tokens: ReadTokens,
  limiter: RateLimiter = new RateLimiter(),
  now: () => Date = () => new Date(),
  hide: (text: string) => string = (text) => text,
): ReadRoutes => {
  // One report is folded at a time: several at once would only share the same CPU, and each
  // fold would take that much longer away from the deliveries.
  let reports: Promise<unknown> = Promise.resolve();
  const oneReportAtATime = <T>(render: () => Promise<T>): Promise<T> => {
    const next = reports.then(render, render);
    reports = next.catch(() => undefined);
    return next;
  };
  const answer = async (
    path: string,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<ReadAnswer> => {
    const client = tokens.match(request.headers.authorization);
    if (client === undefined) {
      const given = request.headers.authorization !== undefined;
      return sendJson(
        request,
        response,
        401,
        { error: given ? 'unknown bearer token' : 'a bearer token is required' },
        {
          'www-authenticate': given
            ? 'Bearer realm="signfold", error="invalid_token"'
            : 'Bearer realm="signfold"',
        },
      );
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return sendJson(request, response, 405, { error: 'use GET' }, { allow: 'GET, HEAD' });
    }
    const isReport = path === '/report';
    const wait = limiter.take(client.name, isReport ? REPORT_COST : 1);
    if (wait > 0) {
      return sendJson(
        request,
        response,
        429,
        { error: `too many requests: retry after ${wait} s` },
        { 'retry-after': String(wait) },
      );
    }
    try {
      if (isReport) {
        const html = await oneReportAtATime(() => model.report(client.companies));
        send(request, response, 200, html, {
          'content-type': 'text/html; charset=utf-8',
          'x-frame-options': 'DENY',
        });
        return { status: 200 };
      }
      if (path === LIST) {
        const query = parseListQuery(searchOf(request.url));
        if (query.isErr()) return sendJson(request, response, 400, { error: query.error });
        const page = await model.list(query.value, client.companies, now());
        return sendJson(request, response, 200, page);
      }
      const raw = ONE.exec(path)?.[1];
      if (raw === undefined) return sendJson(request, response, 404, NOT_FOUND);
      const id = idOf(raw);
      if (id === undefined) {
        return sendJson(request, response, 400, { error: 'a sign request id is a whole number' });
      }
      const document = await model.signRequest(id, client.companies);
      return sendJson(request, response, document === undefined ? 404 : 200, document ?? NOT_FOUND);
    } catch (cause) {
      sendJson(
        request,
        response,
        503,
        { error: 'the state cannot be read now: try again later' },
        { 'retry-after': String(RETRY_AFTER_UNAVAILABLE) },
      );
      // The request log keeps the reason: a driver's message may quote the database URL.
      return { status: 503, reason: hide(cause instanceof Error ? cause.message : String(cause)) };
    }
  };
  return {
    serves: (path) => path === '/report' || path === '/api' || path.startsWith('/api/'),
    answer,
  };
};
