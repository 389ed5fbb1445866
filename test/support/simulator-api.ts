/**
 * The service's read API as the simulator offers it: `GET /sign-requests/:id` answers the §2
 * representation. The spec shows no endpoint (§4), so the path, the 404 for an unknown or
 * deleted request and the error bodies are the simulator's. Failures can be injected per id, so
 * that a caller's handling of a failing, slow or nonsensical service can be tested.
 */
import { createServer, type Server } from 'node:http';

/** An injected failure for one sign request id. */
export type ApiFailure =
  /** Answers this status (e.g. 500, 503, 429) with a JSON error body. */
  | { readonly kind: 'status'; readonly status: number; readonly times?: number }
  /** Answers correctly, but only after `delayMs`. */
  | { readonly kind: 'slow'; readonly delayMs: number; readonly times?: number }
  /** Answers 200 with a body that is not JSON. */
  | { readonly kind: 'garbage'; readonly times?: number }
  /** Answers 200 with JSON that is no sign request (it does not decode). */
  | { readonly kind: 'invalid'; readonly times?: number };
// `times`: the failure applies to that many requests for the id, then answers are normal again
// (default: every request), as a service that recovers would.

/** One request the API answered. */
export interface ApiCall {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** ms epoch at arrival. */
  readonly at: number;
}

/** The running API. */
export interface SimulatorApi {
  /** `http://127.0.0.1:PORT`, the value for `SIGNFOLD_SIMULATOR_URL`. */
  readonly url: string;
  /** Every request answered so far, in order of their answers. */
  readonly calls: readonly ApiCall[];
  /** Sets (or with `undefined` clears) the failure of a sign request id. */
  fail(signRequestId: number, failure: ApiFailure | undefined): void;
  /** Stops listening, drops open connections and pending slow answers. */
  close(): Promise<void>;
}

const PATH = /^\/sign-requests\/(-?\d{1,16})$/;

/**
 * Starts the API on 127.0.0.1 and a free port; `representation` gives a request's §2 JSON, or
 * `undefined` for a 404.
 */
export const startSimulatorApi = async (
  representation: (signRequestId: number) => Record<string, unknown> | undefined,
  failures: ReadonlyMap<number, ApiFailure> = new Map(),
): Promise<SimulatorApi> => {
  const injected = new Map(failures);
  const served = new Map<number, number>();
  const calls: ApiCall[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const method = request.method ?? '';
    const answer = (status: number, body: string, type = 'application/json'): void => {
      calls.push({ method, path, status, at: Date.now() });
      response.writeHead(status, { 'content-type': type }).end(body);
    };
    const match = PATH.exec(path);
    if (match === null) return answer(404, JSON.stringify({ error: `no route ${method} ${path}` }));
    if (method !== 'GET') return answer(405, JSON.stringify({ error: 'use GET' }));
    const id = Number(match[1]);
    const count = served.get(id) ?? 0;
    served.set(id, count + 1);
    const failure = injected.get(id);
    const active = failure !== undefined && count < (failure.times ?? Number.POSITIVE_INFINITY);
    const normal = (): void => {
      const found = representation(id);
      if (found === undefined) {
        answer(404, JSON.stringify({ error: `sign request ${id} not found` }));
      } else {
        answer(200, JSON.stringify(found));
      }
    };
    if (!active) return normal();
    switch (failure.kind) {
      case 'status':
        return answer(
          failure.status,
          JSON.stringify({ error: `injected failure ${failure.status} for ${id}` }),
        );
      case 'garbage':
        return answer(200, '<html>upstream proxy error</html>', 'text/html');
      case 'invalid':
        return answer(200, JSON.stringify({ id: String(id), status: 42 }));
      case 'slow': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!response.destroyed) normal();
        }, failure.delayMs);
        timers.add(timer);
        return;
      }
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    fail: (signRequestId, failure) => {
      if (failure === undefined) injected.delete(signRequestId);
      else injected.set(signRequestId, failure);
      served.delete(signRequestId);
    },
    close: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
