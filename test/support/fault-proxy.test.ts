/** The fault proxy does to the bytes what each mode promises (against a plain echo server). */
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from './fault-proxy.js';

let echo: Server;
let echoPort = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  echo = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => socket.write(chunk));
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const address = echo.address();
  echoPort = typeof address === 'object' && address !== null ? address.port : 0;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

let proxy: FaultProxy | undefined;
const clients = new Set<Socket>();
afterEach(async () => {
  for (const client of clients) client.destroy();
  clients.clear();
  await proxy?.close();
  proxy = undefined;
});

/** A client of the proxy that collects what it receives and how it ended. */
const open = async (port: number) => {
  const socket = tcpConnect(port, '127.0.0.1');
  clients.add(socket);
  let received = '';
  let ended: string | undefined;
  socket.on('data', (chunk) => {
    received += chunk.toString();
  });
  socket.on('error', (error: NodeJS.ErrnoException) => {
    ended = error.code ?? error.message;
  });
  socket.on('close', () => {
    ended ??= 'closed';
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return {
    socket,
    received: () => received,
    ended: () => ended,
  };
};

/** Waits until `check` holds, polling; fails after a bound only a real defect reaches. */
const until = async (check: () => boolean, what: string, boundMs = 20_000): Promise<void> => {
  const deadline = Date.now() + boundMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${boundMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** Gives the event loop a few turns, so that bytes that would arrive have had the chance. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

describe('the fault proxy', () => {
  it('passes bytes both ways', async () => {
    proxy = await startFaultProxy(echoPort);
    const client = await open(proxy.port);
    client.socket.write('hello');
    await until(() => client.received() === 'hello', 'the echo');
    expect(proxy.stats()).toMatchObject({ accepted: 1, open: 1 });
  });

  it('delays every chunk, in order', async () => {
    proxy = await startFaultProxy(echoPort);
    await proxy.set({ kind: 'delay', delayMs: 150 });
    const client = await open(proxy.port);
    const sent = Date.now();
    client.socket.write('a');
    client.socket.write('b');
    await until(() => client.received() === 'ab', 'the delayed echo');
    // Two hops (there and back), each at least the delay.
    expect(Date.now() - sent).toBeGreaterThanOrEqual(290);
  });

  it('holds bytes in a blackhole and delivers them when it heals', async () => {
    proxy = await startFaultProxy(echoPort);
    const client = await open(proxy.port);
    await proxy.set({ kind: 'blackhole' });
    client.socket.write('held');
    await settle();
    expect(client.received()).toBe('');
    expect(client.ended()).toBeUndefined();
    await proxy.set({ kind: 'pass' });
    await until(() => client.received() === 'held', 'the held bytes');
  });

  it('severs open and new connections for ever, without closing them; later ones work', async () => {
    proxy = await startFaultProxy(echoPort);
    const before = await open(proxy.port);
    await proxy.set({ kind: 'sever' });
    const during = await open(proxy.port);
    before.socket.write('x');
    during.socket.write('y');
    await proxy.set({ kind: 'pass' });
    const after = await open(proxy.port);
    after.socket.write('z');
    await until(() => after.received() === 'z', 'a connection opened after the sever');
    before.socket.write('x');
    await settle();
    expect([before.received(), during.received()]).toEqual(['', '']);
    expect([before.ended(), during.ended()]).toEqual([undefined, undefined]);
    expect(proxy.stats().severed).toBe(2);
  });

  it('resets open connections and new ones', async () => {
    proxy = await startFaultProxy(echoPort);
    const client = await open(proxy.port);
    await proxy.set({ kind: 'reset' });
    await until(() => client.ended() !== undefined, 'the reset');
    expect(client.ended()).toBe('ECONNRESET');
    const late = tcpConnect(proxy.port, '127.0.0.1');
    clients.add(late);
    const code = await new Promise<string | undefined>((resolve) => {
      late.on('error', (error: NodeJS.ErrnoException) => resolve(error.code));
      late.on('close', () => resolve('closed'));
    });
    expect(code).toBe('ECONNRESET');
  });

  it('refuses new connections, then listens again on the same port', async () => {
    proxy = await startFaultProxy(echoPort);
    const { port } = proxy;
    await proxy.set({ kind: 'refuse' });
    const refused = tcpConnect(port, '127.0.0.1');
    clients.add(refused);
    const code = await new Promise<string | undefined>((resolve) => {
      refused.on('error', (error: NodeJS.ErrnoException) => resolve(error.code));
    });
    expect(code).toBe('ECONNREFUSED');
    await proxy.set({ kind: 'pass' });
    const client = await open(port);
    client.socket.write('back');
    await until(() => client.received() === 'back', 'the echo after listening again');
  });
});
