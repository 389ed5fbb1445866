/**
 * `signfold/emulator` in process: what it delivered, its truth, its retries under one delivery
 * id (with nothing overtaking a delivery being retried), giving up within its bounds, and stop.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeEventJson } from '../../src/core/events/decode-event.js';
import { initialState } from '../../src/core/projections/projection-state.js';
import { fold } from '../../src/core/projections/reduce.js';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { startStandardReceiver } from './receivers.js';

const WHSEC = `whsec_${Buffer.from('in-process-emulator-secret').toString('base64')}`;
const running: Emulator[] = [];
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.stop()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A receiver whose answer to each request `answer` decides, recording the ids in arrival order. */
const startReceiver = async (
  answer: (id: string, attempt: number, response: ServerResponse) => void,
): Promise<{ url: string; ids: string[] }> => {
  const ids: string[] = [];
  const attempts = new Map<string, number>();
  const server = createServer((request: IncomingMessage, response) => {
    request.resume();
    request.on('end', () => {
      const id = String(request.headers['x-delivery-id']);
      ids.push(id);
      const attempt = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, attempt);
      answer(id, attempt, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/`,
    ids,
  };
};

describe('signfold/emulator', () => {
  it('delivers every event, verified by the standardwebhooks package, and its truth is what they fold to', async () => {
    const receiver = await startStandardReceiver(WHSEC);
    servers.push(receiver);
    const emulator = await startEmulator({
      to: receiver.url,
      secret: WHSEC,
      scheme: 'standard-webhooks',
      seed: 3,
      requests: 8,
      signing: 'sequential',
    });
    running.push(emulator);
    const counts = await emulator.delivered;
    expect(counts).toEqual({
      sent: emulator.events.length,
      acknowledged: emulator.events.length,
      retried: 0,
      lost: 0,
      duplicated: 0,
      reordered: 0,
      givenUp: 0,
    });
    expect(receiver.refused).toEqual([]);
    const events = receiver.verified.map((d) => decodeEventJson(d.body)._unsafeUnwrap());
    const { state, conflicts } = fold(initialState(), events);
    expect(conflicts).toEqual([]);
    for (const request of emulator.truth().signRequests) {
      expect(state.signRequests.get(request.id as never)?.status).toBe(request.status);
      for (const p of request.participants) {
        const projected = state.participants.get(request.id as never)?.get(p.id as never);
        expect(projected?.status ?? null).toBe(p.status);
      }
    }
  });

  it('retries a delivery without a 2xx under the same id, and nothing overtakes it', async () => {
    const receiver = await startReceiver((id, attempt, response) => {
      // Every fourth event fails twice, then succeeds.
      const index = Number(id.split('-').at(-1));
      response.writeHead(index % 4 === 0 && attempt <= 2 ? 503 : 200).end();
    });
    const emulator = await startEmulator({
      to: receiver.url,
      secret: 'hmac-secret',
      seed: 4,
      requests: 4,
      backoffMs: 5,
    });
    running.push(emulator);
    const counts = await emulator.delivered;
    const failing = emulator.events.filter((e) => e.index % 4 === 0).length;
    expect(counts).toMatchObject({ retried: 2 * failing, givenUp: 0 });
    // Arrival order: each id's attempts together, ids in emitted order.
    const firstSeen = [...new Set(receiver.ids)];
    expect(firstSeen).toEqual(emulator.events.map((e) => e.deliveryId));
    const grouped = receiver.ids.filter((id, i) => i === 0 || receiver.ids[i - 1] !== id);
    expect(grouped).toEqual(firstSeen);
  });

  it('gives up after its retries when no answer comes in time, and stops at once', async () => {
    const receiver = await startReceiver(() => {
      // Never answers.
    });
    const emulator = await startEmulator({
      to: receiver.url,
      secret: 'hmac-secret',
      requests: 0,
      templates: 2,
      retries: 1,
      timeoutMs: 100,
      backoffMs: 10,
    });
    running.push(emulator);
    const started = Date.now();
    const counts = await emulator.delivered;
    expect(counts).toMatchObject({ sent: 4, acknowledged: 0, retried: 4, givenUp: 4 });
    expect(Date.now() - started).toBeLessThan(10_000);

    const slow = await startEmulator({
      to: receiver.url,
      secret: 'hmac-secret',
      requests: 5,
      timeoutMs: 60_000,
    });
    const stopping = Date.now();
    await slow.stop();
    expect(Date.now() - stopping).toBeLessThan(5000);
    expect((await slow.delivered).acknowledged).toBe(0);
  });

  it('refuses invalid options before starting anything', async () => {
    await expect(startEmulator({ loss: 1.5 })).rejects.toThrow(/loss must be in \[0, 1\]/);
    await expect(startEmulator({ to: 'http://127.0.0.1:1/' })).rejects.toThrow(/secret/);
    await expect(
      startEmulator({ to: 'http://127.0.0.1:1/', secret: 'plain', scheme: 'standard-webhooks' }),
    ).rejects.toThrow(/not a Standard Webhooks signing secret/);
    await expect(startEmulator({ requests: -1 })).rejects.toThrow(/requests must be/);
  });
});

describe('the read API’s injected failures', () => {
  it('answer a seeded share of requests 503 with Retry-After, the others as usual', async () => {
    const emulator = await startEmulator({ seed: 2, requests: 3, apiPort: 0, apiFailure: 0.5 });
    running.push(emulator);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i += 1) {
      const answer = await fetch(`${emulator.apiUrl}/sign-requests/5000`);
      statuses.push(answer.status);
      if (answer.status === 503) expect(answer.headers.get('retry-after')).toBe('1');
      await answer.arrayBuffer();
    }
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(5);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(5);
    await expect(startEmulator({ apiFailure: 2 })).rejects.toThrow(/apiFailure must be in/);
  });
});
