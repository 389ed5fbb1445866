/**
 * SIGTERM while a sender is stalled in the middle of a body (a slow link, a proxy that stopped
 * forwarding, a client that crashed without closing): no append can have started for that request
 * (the handler appends only a whole body), so nothing acknowledged depends on it. `serve` must not
 * wait for it until its shutdown bound and then exit 1: it cuts it after a short grace and exits 0.
 * The sender never got an answer, so it delivers again; the delivery is not stored.
 */
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe } from '../../bench/serve-process.js';
import { removeTempDirs, tempDir } from '../cli/cli-helpers.js';
import { fileLogDeliveries } from '../support/stored-deliveries.js';
import { SECRET_ENV_VARS, signedDelivery } from './fixtures/serve-deliveries.js';

afterAll(removeTempDirs);

/** The documented shutdown bound: a stalled sender must not use it up. */
const SIGTERM_BOUND_MS = 10_000;

/** Opens a connection and sends the head of a signed delivery and half of its body. */
const stallMidBody = async (port: number): Promise<{ socket: Socket; closed: Promise<void> }> => {
  const { body, headers = {} } = signedDelivery('stalled', 0);
  const bytes = Buffer.from(body);
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise((resolve) => socket.once('connect', resolve));
  const head = Object.entries({ ...headers, 'content-type': 'application/json' })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(
    `POST /webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\n${head}content-length: ${bytes.length}\r\n\r\n`,
  );
  socket.write(bytes.subarray(0, bytes.length >> 1));
  return { socket, closed };
};

describe('serve stopped while a sender is stalled mid-body', () => {
  it('cuts the stalled request, exits 0 soon after SIGTERM, and stores nothing of it', async () => {
    const path = join(await tempDir(), 'events.ndjson');
    const serve = await startServe(['--log', path], { env: SECRET_ENV_VARS });
    const stalled = await stallMidBody(serve.port);
    // A complete delivery before the signal is stored and acknowledged as usual.
    const { body, headers } = signedDelivery('stalled', 1);
    const answer = await fetch(serve.url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...headers },
    });
    expect(answer.status).toBe(200);
    const signalled = performance.now();
    serve.child.kill('SIGTERM');
    const ended = await serve.exited;
    stalled.socket.destroy();
    expect({ code: ended.code, signal: ended.signal }, serve.stderr().slice(-1_000)).toEqual({
      code: 0,
      signal: null,
    });
    expect(ended.at - signalled).toBeLessThan(SIGTERM_BOUND_MS / 2);
    const stored = await fileLogDeliveries(path);
    expect([...stored.counts.keys()]).toEqual(['stalled-1']);
  });
});
