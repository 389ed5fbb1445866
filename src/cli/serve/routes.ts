/**
 * The endpoints of `signfold serve`: `POST /webhooks` (the webhook handler),
 * `GET /healthz`, `GET /readyz` (signfold/http's health answers), `GET
 * /metrics`, the read API's when it is on (signfold/http's read routes);
 * 404 for any other path. The
 * query string is ignored when matching. Every request is answered (never a
 * 500 for bad input) and logged as one line.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { answerHealth, type HealthAnswer, useGet } from '../../http/health-handler.js';
import { requestOf, writeResponse } from '../../http/node-listener.js';
import type { ReadRoutes } from '../../http/read-routes.js';
import { deliveryIdOf } from '../../webhooks/delivery-id.js';
import { handleNodeRequest } from '../../webhooks/node-request.js';
import { unavailableAnswer } from '../../webhooks/webhook-answers.js';
import type { WebhookHandler, WebhookOutcome } from '../../webhooks/webhook-types.js';
import { scrapeFailure } from '../metrics/metrics-server.js';
import type { InFlightRequests } from './in-flight.js';
import type { ServeMetrics } from './metrics.js';
import type { RequestEntry, ServeLog } from './request-log.js';
import type { ServeStorage } from './storage.js';

/** What the routes answer with. */
export interface ServeRoutesOptions {
  readonly handler: WebhookHandler;
  readonly maxBodyBytes: number;
  /** Lower-cased, as the handler reads it. */
  readonly deliveryHeader: string;
  readonly metrics: ServeMetrics;
  readonly storage: ServeStorage;
  /** Why appends in progress say deliveries cannot be stored now (one waits too long), if they do. */
  readonly stalled: () => string | undefined;
  readonly log: ServeLog;
  readonly inFlight: InFlightRequests;
  /** `true` once a shutdown began: new deliveries get 503 and connections are not kept. */
  readonly stopping: () => boolean;
  /** `--read-token-env`: the read API's routes (`/api/…`, `/report`); absent, those paths are 404. */
  readonly readApi?: ReadRoutes | undefined;
}

/** Seconds a sender should wait before delivering again to a server that is stopping. */
const RETRY_AFTER_STOPPING = 5;

/** An absolute-form request target (`http://host/path`), as a proxy may send one. */
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The path of a request target, without its query string. Only an
 * absolute-form target is parsed as a URL: `//x/webhooks` is an origin-form
 * path with an empty first segment (a 404), not a host `x`.
 */
export const pathOf = (target: string | undefined): string => {
  const raw = target ?? '/';
  if (ABSOLUTE_FORM.test(raw)) {
    try {
      return new URL(raw).pathname;
    } catch {
      // Not a URL after all: matched as written below, which finds no endpoint.
    }
  }
  return raw.split(/[?#]/, 1)[0] ?? raw;
};

type Answer = { readonly status: number; readonly reason?: string };

const write = (
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void => {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(body);
};

const json = (value: unknown): string => `${JSON.stringify(value)}\n`;

/** Writes a fetch handler's answer to `response`; what the request's log line says of it. */
const written = async (answer: HealthAnswer, response: ServerResponse): Promise<Answer> => {
  await writeResponse(answer.response, response);
  return answer.reason === undefined
    ? { status: answer.status }
    : { status: answer.status, reason: answer.reason };
};

/** GET /metrics: the registry's text, or 503 when a gauge read at scrape time could not be. */
const answerMetrics = async (
  response: ServerResponse,
  options: ServeRoutesOptions,
): Promise<Answer> => {
  let text: string;
  try {
    text = await options.metrics.render();
  } catch (cause) {
    // The gauges read at scrape time could not be read in time: one line, not numbers from before.
    const reason = scrapeFailure(cause);
    if (!response.headersSent) {
      response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end(reason);
    }
    return { status: 503, reason: reason.trimEnd() };
  }
  if (!response.headersSent) {
    response.writeHead(200, { 'content-type': options.metrics.contentType });
    response.end(text);
  }
  return { status: 200 };
};

/** The endpoints other than /webhooks, which are read-only and answer GET (and HEAD). */
const answerProbe = async (
  path: string,
  request: IncomingMessage,
  response: ServerResponse,
  options: ServeRoutesOptions,
): Promise<Answer> => {
  const method = request.method ?? '';
  if (path === '/metrics') {
    return method === 'GET' || method === 'HEAD'
      ? answerMetrics(response, options)
      : written(useGet(), response);
  }
  const ready = async (): Promise<string | undefined> =>
    options.stopping() ? 'stopping' : (options.stalled() ?? (await options.storage.probe()));
  return written(await answerHealth(path, method, { ready }), response);
};

/** A read route: its answer made from the request as a fetch `Request`, written back. */
const answerRead = async (
  readApi: ReadRoutes,
  path: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<Answer> => written(await readApi.answer(path, requestOf(request)), response);

/** A delivery that arrived on a kept-alive connection after the shutdown began. */
const refuseWhileStopping = (
  request: IncomingMessage,
  response: ServerResponse,
  options: ServeRoutesOptions,
): WebhookOutcome => {
  const id = deliveryIdOf(request.headers, options.deliveryHeader, false);
  const reason = 'shutting down: deliver again later';
  const outcome = {
    kind: 'unavailable',
    status: 503,
    reason,
    deliveryId: id.isOk() ? id.value : undefined,
  } as const;
  options.metrics.count(outcome);
  const answer = unavailableAnswer(reason, RETRY_AFTER_STOPPING);
  write(response, answer.status, answer.body, { ...answer.headers });
  request.resume();
  return outcome;
};

const entryOf = (outcome: WebhookOutcome | undefined): Partial<RequestEntry> => {
  if (outcome === undefined) return { outcome: 'client-gone' };
  const deliveryId = outcome.deliveryId ?? null;
  if (outcome.kind === 'stored' || outcome.kind === 'duplicate') {
    return { outcome: outcome.kind, deliveryId, position: outcome.position };
  }
  if (outcome.kind === 'answered') return { outcome: outcome.kind, deliveryId };
  return { outcome: outcome.kind, deliveryId, reason: outcome.reason };
};

/** POST /webhooks: the handler, counted in flight so a shutdown waits for it. */
const answerWebhook = async (
  request: IncomingMessage,
  response: ServerResponse,
  options: ServeRoutesOptions,
): Promise<Partial<RequestEntry>> => {
  if (options.stopping()) return entryOf(refuseWhileStopping(request, response, options));
  options.metrics.inFlight(1);
  try {
    const { handler, maxBodyBytes } = options;
    return entryOf(await handleNodeRequest(handler, request, response, { maxBodyBytes }));
  } finally {
    options.metrics.inFlight(-1);
  }
};

/** The request listener of a server, and the switch that ends keep-alive when it stops. */
export interface ServeRoutes {
  readonly listener: (request: IncomingMessage, response: ServerResponse) => Promise<void>;
  /**
   * Makes every answer not yet written (and, through `stopping`, every later
   * one) close its connection: a kept-alive connection would hold the exit up.
   */
  stopKeepingAlive(): void;
  /**
   * Cuts the connections of the requests whose body has not fully arrived:
   * no append can have started for them (the handler appends a whole body
   * only), and their senders, who got no answer, deliver them again.
   */
  cutIncompleteBodies(): void;
}

/**
 * The routes of a server. The listener never rejects: whatever goes wrong
 * inside is answered 500 (our fault, never the client's input) and logged.
 */
export const serveRoutes = (options: ServeRoutesOptions): ServeRoutes => {
  const unanswered = new Set<ServerResponse>();
  const closeAfterAnswer = (response: ServerResponse): void => {
    if (!response.headersSent) response.setHeader('connection', 'close');
  };
  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const started = performance.now();
    const path = pathOf(request.url);
    if (options.stopping()) closeAfterAnswer(response);
    let entry: Partial<RequestEntry>;
    try {
      const { readApi } = options;
      entry =
        path === '/webhooks'
          ? await answerWebhook(request, response, options)
          : readApi?.serves(path) === true
            ? { outcome: null, ...(await answerRead(readApi, path, request, response)) }
            : { outcome: null, ...(await answerProbe(path, request, response, options)) };
    } catch (cause) {
      write(response, 500, json({ error: 'internal error' }));
      entry = { outcome: null, reason: cause instanceof Error ? cause.message : String(cause) };
    }
    // Member by member, not `{ ...defaults, ...entry }`: once per request.
    const line: { -readonly [K in keyof RequestEntry]: RequestEntry[K] } = {
      method: request.method ?? '',
      path,
      status:
        entry.status !== undefined
          ? entry.status
          : response.headersSent
            ? response.statusCode
            : null,
      deliveryId: entry.deliveryId ?? null,
      durationMs: performance.now() - started,
      outcome: entry.outcome ?? null,
    };
    if (entry.reason !== undefined) line.reason = entry.reason;
    if (entry.position !== undefined) line.position = entry.position;
    options.log.request(line);
  };
  return {
    listener: async (request, response) => {
      options.inFlight.begin();
      unanswered.add(response);
      try {
        await answer(request, response);
      } finally {
        unanswered.delete(response);
        options.inFlight.end();
      }
    },
    stopKeepingAlive: () => {
      for (const response of unanswered) closeAfterAnswer(response);
    },
    cutIncompleteBodies: () => {
      for (const { req } of unanswered) if (!req.complete) req.socket.destroy();
    },
  };
};
