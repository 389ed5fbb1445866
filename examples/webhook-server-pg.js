#!/usr/bin/env node
// A webhook receiver on PostgreSQL: createWebhookHandler verifies each delivery and appends it
// to the signfold event store (committed, idempotently by delivery id) before it is
// acknowledged. Run as many of these processes as you like, on as many machines: they share the
// store, and the projection workers (`signfold pg work`) turn it into tables. Explained in
// docs/postgres.md; `signfold serve --database` (docs/cli.md#serve) is the ready-made server.
//
//   npm run build && signfold pg migrate --database "$DATABASE_URL"
//   DATABASE_URL=postgres://... SIGNFOLD_WEBHOOK_SECRET=... node examples/webhook-server-pg.js
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { openPostgresEventLog } from '../dist/postgres/index.js';
import { createWebhookHandler } from '../dist/webhooks/index.js';
import { MAX_BODY_BYTES, secretsFromEnv, serveWebhooks } from './webhook-server.js';

/**
 * Connects, checks the schema, and listens for `POST /webhooks`.
 * @param {{ databaseUrl: string, schema?: string, port?: number, host?: string,
 *   maxBodyBytes?: number, secrets?: string[], insecureNoSignature?: boolean }} options
 */
export const startServer = async ({
  databaseUrl,
  schema,
  port = 8080,
  host = '127.0.0.1',
  maxBodyBytes = MAX_BODY_BYTES,
  secrets = secretsFromEnv(),
  insecureNoSignature = false,
}) => {
  if (secrets.length === 0 && !insecureNoSignature) {
    throw new Error('no secret: set SIGNFOLD_WEBHOOK_SECRET (or run with --insecure-no-signature)');
  }
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  // A connection lost while idle is reported by the next query (as a 503), not thrown here.
  pool.on('error', () => undefined);
  const opened = await openPostgresEventLog(pool, schema === undefined ? {} : { schema });
  if (opened.isErr()) {
    await pool.end();
    throw new Error(opened.error.message);
  }
  const log = opened.value;
  // Resolves once the insert is committed (PostgreSQL's synchronous_commit decides how durable).
  const handler = createWebhookHandler({
    log,
    secrets,
    insecureNoSignature: secrets.length === 0,
    maxBodyBytes,
  });
  const serving = await serveWebhooks(handler, { port, host, maxBodyBytes });
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
  const insecureNoSignature = process.argv.includes('--insecure-no-signature');
  if (secretsFromEnv().length === 0 && !insecureNoSignature) {
    console.error(
      'webhook-server-pg: set SIGNFOLD_WEBHOOK_SECRET, or pass --insecure-no-signature',
    );
    process.exit(2);
  }
  const running = await startServer({
    databaseUrl: process.env.DATABASE_URL ?? '',
    schema: process.env.SIGNFOLD_SCHEMA,
    port: Number(process.env.PORT ?? 8080),
    insecureNoSignature,
  }).catch((/** @type {unknown} */ cause) => {
    console.error(`webhook-server-pg: ${cause instanceof Error ? cause.message : String(cause)}`);
    process.exit(1);
  });
  console.error(`listening on ${running.url}, appending to PostgreSQL`);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      void running.close().then(() => process.exit(0));
    });
  }
}
