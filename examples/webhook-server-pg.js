#!/usr/bin/env node
// A webhook receiver on PostgreSQL: every delivery is appended to the signfold event store
// (committed, idempotently by delivery id) before it is acknowledged. Run as many of these
// processes as you like, on as many machines: they share the store, and the projection
// workers (`signfold pg work`) turn it into tables. Explained in docs/postgres.md.
//
//   npm run build && signfold pg migrate --database "$DATABASE_URL"
//   DATABASE_URL=postgres://... node examples/webhook-server-pg.js
//   curl -H 'x-delivery-id: d-1' --data @event.json http://127.0.0.1:8080/webhooks
import { realpathSync } from 'node:fs';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { openPostgresEventLog } from '../dist/postgres/index.js';
import {
  DELIVERY_HEADER,
  MAX_BODY_BYTES,
  parseBody,
  Rejected,
  readBody,
  reply,
} from './webhook-server.js';

/**
 * Connects, checks the schema, and listens for `POST /webhooks`.
 * @param {{ databaseUrl: string, schema?: string, port?: number, host?: string, maxBodyBytes?: number }} options
 */
export const startServer = async ({
  databaseUrl,
  schema,
  port = 8080,
  host = '127.0.0.1',
  maxBodyBytes,
}) => {
  const limit = maxBodyBytes ?? MAX_BODY_BYTES;
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  // A connection lost while idle is reported by the next query (as a 503), not thrown here.
  pool.on('error', () => undefined);
  const opened = await openPostgresEventLog(pool, schema === undefined ? {} : { schema });
  if (opened.isErr()) {
    await pool.end();
    throw new Error(opened.error.message);
  }
  const log = opened.value;

  /** @type {import('node:http').RequestListener} */
  const handle = async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path !== '/webhooks') return reply(response, 404, { error: 'not found' });
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST');
      return reply(response, 405, { error: 'use POST' });
    }
    try {
      const { event } = parseBody(await readBody(request, limit));
      const header = request.headers[DELIVERY_HEADER];
      const deliveryId = typeof header === 'string' && header.trim() !== '' ? header : undefined;
      // Resolves once the insert is committed (PostgreSQL's synchronous_commit decides how durable).
      const appended = await log.append(event, deliveryId === undefined ? {} : { deliveryId });
      if (appended.isErr()) {
        const { kind, message } = appended.error;
        // Not stored: a non-2xx answer makes the sender deliver it again later.
        if (kind === 'too-large') return reply(response, 413, { error: message });
        if (kind === 'not-serializable') return reply(response, 400, { error: message });
        response.setHeader('retry-after', '5');
        return reply(response, 503, { error: message });
      }
      const stored = appended.value;
      return reply(response, 200, {
        position: stored.position,
        duplicate: stored.kind === 'duplicate',
      });
    } catch (cause) {
      if (!(cause instanceof Rejected)) throw cause;
      if (cause.status === 413) response.setHeader('connection', 'close');
      return reply(response, cause.status, { error: cause.message });
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((/** @type {unknown} */ cause) => {
      console.error('webhook handler failed:', cause);
      if (!response.headersSent) reply(response, 500, { error: 'internal error' });
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(undefined));
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://${host}:${address.port}/webhooks`,
    port: address.port,
    log,
    /** Stops accepting deliveries, lets those in flight finish, then releases the pool. */
    close: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeIdleConnections();
      await closed;
      await log.close();
      await pool.end();
    },
  };
};

const invokedDirectly =
  process.argv[1] !== undefined &&
  import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (invokedDirectly) {
  const databaseUrl = process.env.DATABASE_URL ?? '';
  const running = await startServer({
    databaseUrl,
    schema: process.env.SIGNFOLD_SCHEMA,
    port: Number(process.env.PORT ?? 8080),
  }).catch((/** @type {unknown} */ cause) => {
    console.error(`webhook-server-pg: ${cause instanceof Error ? cause.message : String(cause)}`);
    process.exit(1);
  });
  console.error(`listening on ${running.url}, appending to PostgreSQL`);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      running.close().then(() => process.exit(0));
    });
  }
}
