/**
 * The emulated service's read API on 127.0.0.1: `GET /sign-requests/ID`
 * answers the §2.1 representation of that request as the service holds it
 * now (404 for one it does not know or has deleted), `GET /sign-requests` all
 * of them as a JSON array. The service interface shows no endpoint: the paths and the
 * error bodies are the emulator's.
 */
import { createServer, type Server } from 'node:http';

/** What the API reads. */
export interface ReadSource {
  representation(signRequestId: number): Record<string, unknown> | undefined;
  representations(): readonly Record<string, unknown>[];
}

/** The running API. */
export interface ReadApi {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

const ONE = /^\/sign-requests\/(-?\d{1,16})$/;

/**
 * Starts the API on 127.0.0.1 and `port` (0: any free port). `fails()` says
 * whether the next request is answered 503 (an injected fault, for testing a
 * client's retries).
 */
export const startReadApi = async (
  source: ReadSource,
  port: number,
  fails: () => boolean = () => false,
): Promise<ReadApi> => {
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const answer = (status: number, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (request.method !== 'GET') return answer(405, { error: 'use GET' });
    if (fails()) {
      response.setHeader('retry-after', '1');
      return answer(503, { error: 'injected failure: try again' });
    }
    if (path === '/sign-requests') return answer(200, source.representations());
    const match = ONE.exec(path);
    if (match === null) return answer(404, { error: 'no such route' });
    const id = Number(match[1]);
    const found = Number.isSafeInteger(id) ? source.representation(id) : undefined;
    return found === undefined
      ? answer(404, { error: `sign request ${id} not found` })
      : answer(200, found);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
