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
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { openPostgresEventLog } from '../dist/postgres/index.js';
import {
  deliveryIdOf,
  MAX_BODY_BYTES,
  parseBody,
  readBody,
  reply,
  serveWebhooks,
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

  /** @type {Parameters<typeof serveWebhooks>[0]} */
  const deliver = async (request, response) => {
    const { event } = parseBody(await readBody(request, limit));
    const deliveryId = deliveryIdOf(request);
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
  };

  const serving = await serveWebhooks(deliver, { port, host });
  return {
    url: serving.url,
    port: serving.port,
    log,
    /** Stops accepting deliveries, lets those in flight finish, then releases the pool. */
    close: async () => {
      await serving.stop();
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
