/**
 * The read API and live page: `GET /api/sign-requests/:id`,
 * `GET /api/sign-requests?…` and `GET /report`, behind bearer tokens bound
 * to companies, or a report link and the cookie it is traded for
 * (read-access.ts). Every path under `/api/` and `/report` asks for a token
 * first (401), then its budget (429), and only then looks at the request:
 * without a token nothing, not even which paths exist, can be learnt. A
 * record of another company is answered as one that does not exist (404,
 * the same body), so ids do not leak.
 */
import type { FetchRequest, FetchResponse } from '../engine/fetch-types.js';
import type { ReadModel } from '../engine/read-model.js';
import { idOf, parseListQuery } from './list-query.js';
import { RateLimiter, REPORT_COST } from './rate-limiter.js';
import { type ReadAccess, readAccess } from './read-access.js';
import type { ReadTokens } from './read-tokens.js';

/** What a read route answered, and why when it failed (for a request's log line). */
export interface ReadAnswer {
  readonly response: FetchResponse;
  readonly status: number;
  readonly reason?: string;
}

/** The read routes of one server. */
export interface ReadRoutes {
  /** Whether `path` is one of the read API's (then {@link answer} answers it). */
  serves(path: string): boolean;
  /** Answers a request for a path it {@link serves}; never rejects. */
  answer(path: string, request: FetchRequest): Promise<ReadAnswer>;
}

/** Seconds a client should wait when the state cannot be read now (the database is down). */
const RETRY_AFTER_UNAVAILABLE = 5;

const LIST = '/api/sign-requests';
const ONE = /^\/api\/sign-requests\/([^/]*)$/;

// No answer of the API is cached anywhere on the way, nor sniffed into another type.
const PRIVATE = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

const UTF8 = new TextEncoder();

const send = (
  request: FetchRequest,
  status: number,
  body: string,
  headers: Record<string, string>,
): ReadAnswer => {
  const bytes = UTF8.encode(body);
  const response = new Response(request.method === 'HEAD' ? null : bytes, {
    status,
    headers: { ...PRIVATE, 'content-length': String(bytes.byteLength), ...headers },
  });
  return { response, status };
};

const sendJson = (
  request: FetchRequest,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): ReadAnswer =>
  send(request, status, `${JSON.stringify(value)}\n`, {
    'content-type': 'application/json; charset=utf-8',
    ...headers,
  });

const NOT_FOUND = { error: 'not found' } as const;

/** The query string of a request target, without `?` and any fragment. */
const searchOf = (target: string): string => {
  const at = target.indexOf('?');
  return at === -1 ? '' : (target.slice(at + 1).split('#', 1)[0] ?? '');
};

/** 401, saying whether a token was given (and then that it is unknown). */
const unauthorized = (request: FetchRequest): ReadAnswer => {
  const given = request.headers.get('authorization') !== null;
  return sendJson(
    request,
    401,
    { error: given ? 'unknown bearer token' : 'a bearer token is required' },
    {
      'www-authenticate': given
        ? 'Bearer realm="signfold", error="invalid_token"'
        : 'Bearer realm="signfold"',
    },
  );
};

/** The short pages of a refused link or cookie: fixed text, nothing of the request in them. */
const REFUSED_PAGE: Readonly<Record<'expired' | 'invalid', string>> = {
  expired: 'This report link has expired.',
  invalid:
    'This report link is not valid: it was changed, or the token it was made from was changed to revoke it.',
};

/** 401 with a page saying why the link or cookie is refused, and the cookie cleared. */
const refused = (
  request: FetchRequest,
  access: Extract<ReadAccess, { kind: 'refused' }>,
): ReadAnswer => {
  const page = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    '<title>signfold: report link refused</title></head>',
    `<body><h1>This link does not open the report</h1><p>${REFUSED_PAGE[access.why]}</p>`,
    '<p>Ask whoever sent it for a new one.</p></body></html>',
    '',
  ].join('\n');
  const answered = send(request, 401, page, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': "default-src 'none'",
    'referrer-policy': 'no-referrer',
    'www-authenticate': 'Bearer realm="signfold"',
  });
  for (const cookie of access.clear) answered.response.headers.append('set-cookie', cookie);
  return { ...answered, reason: `${access.source} ${access.why}` };
};

/** 303 to the page without the link, with the cookie that now stands for it. */
const landing = (
  request: FetchRequest,
  access: Extract<ReadAccess, { kind: 'landing' }>,
): ReadAnswer =>
  send(request, 303, '', {
    location: access.location,
    'set-cookie': access.setCookie,
    // The URL with the link is not sent on as a Referer, from here or the page it leads to.
    'referrer-policy': 'no-referrer',
  });

/** The live page, rendered by the report adapter, loaded on the first page asked for. */
const renderReport = async (model: ReadModel, companies: ReadonlySet<number>): Promise<string> => {
  const { renderReadModelReport } = await import('../report/company-report.js');
  return renderReadModelReport(model, companies);
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
  /** The answer for a client that passed the token and the budget. */
  const read = async (
    path: string,
    request: FetchRequest,
    companies: ReadonlySet<number>,
  ): Promise<ReadAnswer> => {
    if (path === '/report') {
      const html = await oneReportAtATime(() => renderReport(model, companies));
      return send(request, 200, html, {
        'content-type': 'text/html; charset=utf-8',
        'x-frame-options': 'DENY',
      });
    }
    if (path === LIST) {
      const query = parseListQuery(searchOf(request.url));
      if (query.isErr()) return sendJson(request, 400, { error: query.error });
      return sendJson(request, 200, await model.list(query.value, companies, now()));
    }
    const raw = ONE.exec(path)?.[1];
    if (raw === undefined) return sendJson(request, 404, NOT_FOUND);
    const id = idOf(raw);
    if (id === undefined) {
      return sendJson(request, 400, { error: 'a sign request id is a whole number' });
    }
    const document = await model.signRequest(id, companies);
    return sendJson(request, document === undefined ? 404 : 200, document ?? NOT_FOUND);
  };
  const answer = async (path: string, request: FetchRequest): Promise<ReadAnswer> => {
    const access = readAccess(request, tokens, now().getTime());
    if (access.kind === 'none') return unauthorized(request);
    if (access.kind === 'refused') return refused(request, access);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return sendJson(request, 405, { error: 'use GET' }, { allow: 'GET, HEAD' });
    }
    if (access.kind === 'landing') return landing(request, access);
    const { client } = access;
    const wait = limiter.take(client.name, path === '/report' ? REPORT_COST : 1);
    if (wait > 0) {
      return sendJson(
        request,
        429,
        { error: `too many requests: retry after ${wait} s` },
        { 'retry-after': String(wait) },
      );
    }
    try {
      return await read(path, request, client.companies);
    } catch (cause) {
      const answered = sendJson(
        request,
        503,
        { error: 'the state cannot be read now: try again later' },
        { 'retry-after': String(RETRY_AFTER_UNAVAILABLE) },
      );
      // The request log keeps the reason: a driver's message may quote the database URL.
      return { ...answered, reason: hide(cause instanceof Error ? cause.message : String(cause)) };
    }
  };
  return {
    serves: (path) => path === '/report' || path === '/api' || path.startsWith('/api/'),
    answer,
  };
};
