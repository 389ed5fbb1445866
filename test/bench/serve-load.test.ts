/**
 * The instruments of the `serve` proofs and benchmarks, checked against plain node:http servers:
 * the open loop keeps its schedule whatever the server does (a server that never answers still
 * gets every request on time, and each ends in a timeout instead of hanging), it is bounded by
 * count and time, it reuses connections; the signer matches RFC 4231; the listening line is read.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openLoop, percentile, summarize } from '../../bench/serve-load.js';
import { listeningPort } from '../../bench/serve-process.js';
import { deliveryHeaders, signBody } from '../../bench/serve-signature.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((done) => {
          server.closeAllConnections();
          server.close(done);
        }),
    ),
  );
});

/** A server on 127.0.0.1 running `handle`; resolves with its /webhooks URL. */
const serve = async (
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ url: string; server: Server }> => {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, server };
};

const body = (index: number) => ({
  body: `{"n":${index}}`,
  deliveryId: `d-${index}`,
  headers: { 'x-delivery-id': `d-${index}` },
});

describe('openLoop', () => {
  it('sends at the rate, records every answer with its delivery id, over few connections', async () => {
    const sockets = new Set<unknown>();
    const seen: string[] = [];
    const { url } = await serve((request, response) => {
      sockets.add(request.socket);
      seen.push(String(request.headers['x-delivery-id']));
      request.resume().on('end', () => response.writeHead(202).end('{"ok":true}'));
    });
    const started = performance.now();
    const results = await openLoop({ url, rate: 200, count: 60, make: body });
    const elapsed = performance.now() - started;
    expect(results.map((r) => r.status)).toEqual(Array(60).fill(202));
    expect(results.map((r) => r.deliveryId)).toEqual(seen.slice().sort(byIndex));
    expect(results[0]?.body).toBe('{"ok":true}');
    // 60 requests at 200/s are spread over 295 ms, not sent at once, nor one at a time after
    // each answer or a second apart (the upper bound leaves a busy machine room: no speed target).
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(10_000);
    const last = results.at(-1);
    expect((last?.scheduledAt ?? 0) - (results[0]?.scheduledAt ?? 0)).toBeCloseTo(295, 0);
    expect(sockets.size).toBeLessThan(60);
    const summary = summarize(results);
    expect(summary).toMatchObject({ sent: 60, ok: 60, errors: 0, byStatus: { 202: 60 } });
    expect(summary.p50).toBeLessThanOrEqual(summary.p99);
  });

  it('keeps sending on schedule to a server that never answers, and times each request out', async () => {
    const arrivals: number[] = [];
    const { url } = await serve((request) => {
      arrivals.push(performance.now());
      request.resume();
    });
    const started = performance.now();
    const results = await openLoop({ url, rate: 100, count: 20, timeoutMs: 300, make: body });
    const elapsed = performance.now() - started;
    expect(results.map((r) => [r.status, r.error])).toEqual(Array(20).fill([0, 'timeout']));
    // Every request reached the server although none was answered: the loop is open.
    expect(arrivals).toHaveLength(20);
    expect((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThan(150);
    // 190 ms of schedule + 300 ms of time limit, not 20 × 300 ms = 6 s (room for a busy machine
    // below that).
    expect(elapsed).toBeLessThan(5_000);
    expect(summarize(results)).toMatchObject({ ok: 0, errors: 20, byStatus: { 0: 20 } });
  });

  it('stops scheduling after `seconds`, and records a refused connection as status 0', async () => {
    const { url, server } = await serve((request, response) => {
      request.resume().on('end', () => response.end('{}'));
    });
    const bounded = await openLoop({ url, rate: 100, count: 1_000, seconds: 0.2, make: body });
    expect(bounded.length).toBeGreaterThanOrEqual(19);
    expect(bounded.length).toBeLessThanOrEqual(21);
    await new Promise((done) => {
      server.closeAllConnections();
      server.close(done);
    });
    const refused = await openLoop({ url, rate: 100, count: 3, make: body });
    expect(refused.map((r) => [r.status, r.error])).toEqual(Array(3).fill([0, 'ECONNREFUSED']));
  });
});

describe('percentile', () => {
  it('is the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('the signer', () => {
  it('computes RFC 4231 test case 2 (HMAC-SHA256), plain and prefixed, and the default headers', () => {
    const expected = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843';
    expect(signBody('what do ya want for nothing?', 'Jefe')).toBe(expected);
    expect(signBody('what do ya want for nothing?', 'Jefe', { prefixed: true })).toBe(
      `sha256=${expected}`,
    );
    expect(
      deliveryHeaders('what do ya want for nothing?', { secret: 'Jefe', deliveryId: 'd' }),
    ).toEqual({ 'x-signature': expected, 'x-delivery-id': 'd' });
    expect(deliveryHeaders('{}', {})).toEqual({});
  });
});

describe('listeningPort', () => {
  it('reads the port from a listening line, and nothing before one', () => {
    expect(listeningPort('listening on http://127.0.0.1:40123/webhooks\n')).toBe(40123);
    expect(listeningPort('{"msg":"listening","host":"127.0.0.1","port":5050}\n')).toBe(5050);
    expect(listeningPort('{"status":200,"port":1}\n')).toBeUndefined();
    expect(listeningPort('')).toBeUndefined();
  });
});

function byIndex(a: string, b: string): number {
  return Number(a.slice(2)) - Number(b.slice(2));
}
