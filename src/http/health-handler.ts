/**
 * The health answers of a service: `GET /healthz` (the process answers) and
 * `GET /readyz` (it can take requests now, or 503 saying why not), as
 * `signfold serve` answers them; 404 for any other path, 405 for a method
 * other than GET or HEAD.
 */
import type { FetchHandler, FetchRequest, FetchResponse } from '../engine/fetch-types.js';

/** Options of {@link createHealthHandler}. */
export interface HealthHandlerOptions {
  /**
   * Why the service cannot take requests now (`/readyz` answers 503 with
   * it), or `undefined` when it can. Default: always ready. A throw or a
   * rejection is a reason too.
   */
  readonly ready?: () => string | undefined | Promise<string | undefined>;
}

/** An answer, with what a request's log line says of it. */
export interface HealthAnswer {
  readonly response: FetchResponse;
  readonly status: number;
  readonly reason?: string;
}

const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
  new Response(`${JSON.stringify(value)}\n`, {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/** 405 for a method other than GET and HEAD: the health paths (and metrics) only read. */
export const useGet = (): HealthAnswer => ({
  response: json(405, { error: 'use GET' }, { allow: 'GET, HEAD' }),
  status: 405,
});

/** Why `ready` says the service is not ready, its throw included. */
const reasonOf = async (ready: HealthHandlerOptions['ready']): Promise<string | undefined> => {
  try {
    return await ready?.();
  } catch (cause) {
    return cause instanceof Error ? cause.message : String(cause);
  }
};

/** Answers `path` (already taken off the request's URL) of a request made with `method`. */
export const answerHealth = async (
  path: string,
  method: string,
  options: HealthHandlerOptions,
): Promise<HealthAnswer> => {
  if (path !== '/healthz' && path !== '/readyz') {
    return { response: json(404, { error: 'not found' }), status: 404 };
  }
  if (method !== 'GET' && method !== 'HEAD') return useGet();
  if (path === '/healthz') return { response: json(200, { status: 'ok' }), status: 200 };
  const reason = await reasonOf(options.ready);
  if (reason === undefined) return { response: json(200, { status: 'ready' }), status: 200 };
  return { response: json(503, { status: 'unavailable', reason }), status: 503, reason };
};

/**
 * The health answers as a fetch handler: mount it on `/healthz` and
 * `/readyz` (a probe of Kubernetes, a load balancer).
 *
 * @example
 * ```ts
 * import { createHealthHandler } from 'signfold/http';
 *
 * const health = createHealthHandler({ ready: () => undefined });
 * const answer = await health.fetch(new Request('http://localhost/readyz'));
 * console.log(answer.status, (await answer.text()).trim()); // 200 {"status":"ready"}
 * ```
 */
export const createHealthHandler = (options: HealthHandlerOptions = {}): FetchHandler => ({
  fetch: async (request: FetchRequest): Promise<FetchResponse> =>
    (await answerHealth(new URL(request.url).pathname, request.method, options)).response,
});
