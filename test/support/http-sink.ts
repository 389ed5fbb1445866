/**
 * A local HTTP sink for reactor tests: it records every call (idempotency
 * key, attempt, pid of the caller, body, time) and answers 500 for the calls
 * `fails` picks, so tests can check at-least-once delivery, repeats and
 * parking from the outside.
 */
import { createServer, type Server } from 'node:http';

/** One call the sink received. */
export interface SinkCall {
  /** The request's path (and query). */
  readonly path: string;
  readonly key: string;
  readonly attempt: number;
  readonly pid: number;
  readonly body: Record<string, unknown>;
  /** ms epoch at arrival. */
  readonly at: number;
  readonly failed: boolean;
}

/** A running sink. */
export interface HttpSink {
  readonly url: string;
  readonly calls: SinkCall[];
  /** Answers the calls `hold` kept waiting, and every later one as usual. */
  release(): void;
  close(): Promise<void>;
}

/**
 * Starts a sink on 127.0.0.1; `delayMs` holds each answer back (so kills land
 * mid-call); a call `hold` picks gets no answer until `release()`, however
 * long that takes.
 */
export const startHttpSink = async (
  options: {
    fails?: (call: Omit<SinkCall, 'failed'>) => boolean;
    delayMs?: number;
    hold?: (call: Omit<SinkCall, 'failed'>) => boolean;
  } = {},
): Promise<HttpSink> => {
  const calls: SinkCall[] = [];
  let held: (() => void)[] | undefined = [];
  const server: Server = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => {
      const seen = {
        path: request.url ?? '',
        key: String(request.headers['idempotency-key'] ?? ''),
        attempt: Number(request.headers['x-attempt'] ?? 0),
        pid: Number(request.headers['x-pid'] ?? 0),
        body: JSON.parse(text === '' ? '{}' : text) as Record<string, unknown>,
        at: Date.now(),
      };
      const failed = options.fails?.(seen) ?? false;
      calls.push({ ...seen, failed });
      const answer = (): void => {
        setTimeout(() => {
          response.writeHead(failed ? 500 : 200, { 'content-type': 'text/plain' });
          response.end(failed ? 'refused by the test sink' : 'ok');
        }, options.delayMs ?? 0);
      };
      if (held !== undefined && options.hold?.(seen) === true) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    calls,
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const answer of waiting) answer();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** How many calls each idempotency key got. */
export const callsByKey = (calls: readonly SinkCall[]): Map<string, SinkCall[]> => {
  const byKey = new Map<string, SinkCall[]>();
  for (const call of calls) byKey.set(call.key, [...(byKey.get(call.key) ?? []), call]);
  return byKey;
};
