/**
 * `nodeListener`: a fetch handler on node:http sees the request as sent
 * (method, path and query, repeated headers, the body), and the glue
 * answers what the handler cannot: a body over the cap 413 with
 * `connection: close`, a body a parser read first 503, a handler that
 * rejects 500, never a crash.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { FetchHandler } from '../../src/engine/fetch-types.js';
import { nodeListener } from '../../src/http/node-listener.js';
import { type Mounted, mountNode } from './fixtures/mount.js';

const echo: FetchHandler = {
  fetch: async (request) =>
    Response.json({
      method: request.method,
      url: new URL(request.url).pathname + new URL(request.url).search,
      tag: request.headers.get('x-tag'),
      body: await request.text(),
    }),
};

const servers: Mounted[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

describe('nodeListener', () => {
  it('hands the handler the request as sent', async () => {
    const server = await mountNode(echo, { maxBodyBytes: 64 });
    servers.push(server);
    const response = await fetch(`${server.url}/a/b?c=1`, {
      method: 'PUT',
      headers: [
        ['x-tag', 'one'],
        ['x-tag', 'two'],
      ],
      body: 'hello',
    });
    expect(await response.json()).toEqual({
      method: 'PUT',
      url: '/a/b?c=1',
      tag: 'one, two',
      body: 'hello',
    });
  });

  it('answers a body over the cap 413 and closes the connection', async () => {
    const server = await mountNode(echo, { maxBodyBytes: 64 });
    servers.push(server);
    const response = await fetch(`${server.url}/`, { method: 'POST', body: 'x'.repeat(65) });
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.json()).toEqual({ error: 'body larger than 64 bytes' });
  });

  it('answers 503 when a body parser read the body first, and 500 when the handler rejects', async () => {
    const listener = nodeListener(echo);
    const failing = nodeListener({ fetch: () => Promise.reject(new Error('boom')) });
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      if (request.url === '/fails') {
        failing(request, response);
        return;
      }
      request.resume();
      request.on('end', () => listener(request, response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const consumed = await fetch(`${base}/`, { method: 'POST', body: '{}' });
      expect([consumed.status, consumed.headers.get('retry-after')]).toEqual([503, '5']);
      expect(((await consumed.json()) as { error: string }).error).toMatch(/body parser ran first/);
      const fails = await fetch(`${base}/fails`);
      expect([fails.status, await fails.json()]).toEqual([500, { error: 'internal error: boom' }]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a cap that is not a whole number of bytes', () => {
    expect(() => nodeListener(echo, { maxBodyBytes: -1 })).toThrow(RangeError);
  });
});
