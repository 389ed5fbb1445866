/**
 * The HTTP server of `--metrics-port`: `GET /metrics` and nothing else, on
 * the loopback address. A scrape that cannot be answered (its read failed or
 * took too long) is a 503 with one line saying why; nothing a scrape does can
 * throw into the process it observes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { visibleText } from '../../core/visible-text.js';
import { CliError, describeThrown } from '../cli-error.js';
import { listen } from '../listen.js';
import { METRICS_HOST } from './metrics-port.js';

/** What the server serves. */
export interface MetricsEndpoint {
  /** The exposition text; rejects when the metrics cannot be read now. */
  render(): Promise<string>;
  readonly contentType: string;
}

/** A listening metrics server. */
export interface MetricsServer {
  /** `http://127.0.0.1:PORT/metrics`, the port it got included. */
  readonly url: string;
  /** Stops listening and drops open connections (a scraper just retries). */
  close(): Promise<void>;
}

/** The one line a failed scrape answers with, its reason from data made visible. */
export const scrapeFailure = (cause: unknown): string =>
  `metrics unavailable: ${visibleText(describeThrown(cause))}\n`;

const answer = async (
  endpoint: MetricsEndpoint,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> => {
  const path = (request.url ?? '').split('?')[0];
  const plain = { 'content-type': 'text/plain; charset=utf-8' };
  if (path !== '/metrics') {
    response.writeHead(404, plain).end('not found: the metrics are at /metrics\n');
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { ...plain, allow: 'GET, HEAD' }).end('use GET\n');
    return;
  }
  let text: string;
  try {
    text = await endpoint.render();
  } catch (cause) {
    response.writeHead(503, plain).end(scrapeFailure(cause));
    return;
  }
  response.writeHead(200, { 'content-type': endpoint.contentType }).end(text);
};

/**
 * Listens on 127.0.0.1:`port` (0: any free port). A port that cannot be had
 * (in use, privileged) is a {@link CliError}: exit 2 before any work starts.
 */
export const startMetricsServer = async (
  port: number,
  endpoint: MetricsEndpoint,
): Promise<MetricsServer> => {
  const server = createServer((request, response) => {
    answer(endpoint, request, response).catch(() => {
      // The client went away mid-answer: nothing to tell anyone.
      response.destroy();
    });
  });
  let url: string;
  try {
    url = await listen(server, port, METRICS_HOST);
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new CliError(`--metrics-port: ${message}`);
  }
  // Once listening, a failing accept must not end the process it observes.
  server.on('error', () => undefined);
  // A scrape in progress must not hold the exit of a stopped process.
  server.unref();
  return {
    url: `${url}/metrics`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
