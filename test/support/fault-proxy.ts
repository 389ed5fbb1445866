/**
 * A userspace TCP proxy that breaks the network between a client and a
 * server on loopback, the way real networks break (there is no netem or
 * iptables here). Every connection to the proxy's port is forwarded to the
 * target; `set(mode)` changes what happens to the bytes from then on:
 *
 * - `pass`: forwarded as they come.
 * - `delay`: each chunk forwarded `delayMs` later (order kept).
 * - `blackhole`: held, both ways, on open and new connections, until the mode
 *   changes; then delivered (a partition that heals, TCP retransmitting).
 * - `sever`: the connections open now and those opened while it lasts go
 *   silent for ever: bytes are dropped, nothing is closed (a lost NAT or load
 *   balancer entry). After it, new connections work; the severed ones stay dead.
 * - `reset`: every open connection is reset (RST), and new ones are reset at once.
 * - `refuse`: the port stops listening (connect gets ECONNREFUSED); open
 *   connections are left as they are.
 *
 * Bounded: `close()` destroys every socket it made, whatever their state.
 */
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

export type FaultMode =
  | { readonly kind: 'pass' }
  | { readonly kind: 'delay'; readonly delayMs: number }
  | { readonly kind: 'blackhole' }
  | { readonly kind: 'sever' }
  | { readonly kind: 'reset' }
  | { readonly kind: 'refuse' };

/** What the proxy saw, for assertions. */
export interface FaultProxyStats {
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections open now (either side). */
  readonly open: number;
  /** Connections severed (dead for ever). */
  readonly severed: number;
  /** Connections reset. */
  readonly reset: number;
}

export interface FaultProxy {
  /** The proxy's port on 127.0.0.1. */
  readonly port: number;
  /** The current mode. */
  readonly mode: FaultMode;
  /** Changes the mode for open and new connections (see the module comment). */
  set(mode: FaultMode): Promise<void>;
  stats(): FaultProxyStats;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

interface Pair {
  readonly client: Socket;
  readonly server: Socket;
  /** Dead for ever: bytes dropped, never closed until the proxy closes. */
  severed: boolean;
  /** Chunks held by a blackhole, in order, per direction. */
  readonly held: { readonly to: Socket; readonly chunk: Buffer }[];
  /** When the last delayed chunk of each direction leaves: keeps delayed chunks in order. */
  readonly lastDelayed: Map<Socket, number>;
}

const listen = (server: Server, port: number): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });

const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    if (!server.listening) resolve();
    else server.close(() => resolve());
  });

/** Starts a proxy to `targetPort` on 127.0.0.1, in `pass` mode. */
export const startFaultProxy = async (targetPort: number): Promise<FaultProxy> => {
  let mode: FaultMode = { kind: 'pass' };
  const pairs = new Set<Pair>();
  const timers = new Set<NodeJS.Timeout>();
  let accepted = 0;
  let severedCount = 0;
  let resetCount = 0;

  const resetPair = (pair: Pair): void => {
    resetCount += 1;
    pair.client.resetAndDestroy();
    pair.server.resetAndDestroy();
    pairs.delete(pair);
  };

  const forward = (pair: Pair, to: Socket, chunk: Buffer): void => {
    if (pair.severed || to.destroyed) return;
    switch (mode.kind) {
      case 'pass':
        to.write(chunk);
        return;
      case 'delay': {
        const at = Math.max(Date.now() + mode.delayMs, pair.lastDelayed.get(to) ?? 0);
        pair.lastDelayed.set(to, at);
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!pair.severed && !to.destroyed) to.write(chunk);
        }, at - Date.now());
        timers.add(timer);
        return;
      }
      case 'blackhole':
        pair.held.push({ to, chunk });
        return;
      case 'sever':
        pair.severed = true;
        return;
      case 'reset':
        resetPair(pair);
        return;
      case 'refuse':
        to.write(chunk);
        return;
    }
  };

  const onConnection = (client: Socket): void => {
    accepted += 1;
    if (mode.kind === 'reset') {
      resetCount += 1;
      client.resetAndDestroy();
      return;
    }
    const server = tcpConnect(targetPort, '127.0.0.1');
    const pair: Pair = {
      client,
      server,
      severed: mode.kind === 'sever',
      held: [],
      lastDelayed: new Map(),
    };
    if (pair.severed) severedCount += 1;
    pairs.add(pair);
    // A severed connection never closes by itself: the peers must find out on their own.
    const end = (): void => {
      if (pair.severed) return;
      pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on('data', (chunk: Buffer) => forward(pair, server, chunk));
    server.on('data', (chunk: Buffer) => forward(pair, client, chunk));
    for (const socket of [client, server]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  };

  const listener = createServer(onConnection);
  await listen(listener, 0);
  const address = listener.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  return {
    port,
    get mode() {
      return mode;
    },
    async set(next) {
      const previous = mode;
      mode = next;
      if (next.kind === 'sever') {
        for (const pair of pairs) {
          if (!pair.severed) severedCount += 1;
          pair.severed = true;
        }
      }
      if (next.kind === 'reset') for (const pair of [...pairs]) resetPair(pair);
      // Not awaited: close() stops listening at once, but its callback waits for every open
      // connection to end, which refuse leaves open on purpose.
      if (next.kind === 'refuse') listener.close();
      else if (previous.kind === 'refuse') await listen(listener, port);
      if (previous.kind === 'blackhole' && next.kind !== 'blackhole') {
        for (const pair of pairs) {
          const held = pair.held.splice(0);
          for (const { to, chunk } of held) forward(pair, to, chunk);
        }
      }
    },
    stats: () => ({ accepted, open: pairs.size, severed: severedCount, reset: resetCount }),
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const pair of pairs) {
        pair.client.destroy();
        pair.server.destroy();
      }
      pairs.clear();
      await closeServer(listener);
    },
  };
};
