#!/usr/bin/env node
// A webhook receiver on node:http and the NDJSON file log: createWebhookHandler verifies each
// delivery's signature, appends its body (durably, idempotently by delivery id) before it is
// acknowledged, and applies it live to a projector. Explained in docs/webhooks.md, which shows
// this file verbatim. `signfold serve` (docs/cli.md#serve) is the ready-made server.
//
//   npm run build && SIGNFOLD_WEBHOOK_SECRET=... node examples/webhook-server.js events.ndjson
import { realpathSync } from 'node:fs';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { createProjector } from '../dist/index.js';
import { openFileEventLog } from '../dist/store/index.js';
import {
  createWebhookHandler,
  DEFAULT_DELIVERY_HEADER,
  handleNodeRequest,
} from '../dist/webhooks/index.js';

/** The header carrying the delivery id (the handler's default, `x-delivery-id`). */
export const DELIVERY_HEADER = DEFAULT_DELIVERY_HEADER;
/** Largest accepted body: the file log's default limit for one event (256 KiB). */
export const MAX_BODY_BYTES = 256 * 1024;

/** The secret(s) from the environment: `SIGNFOLD_WEBHOOK_SECRET`, unset or empty = none. */
export const secretsFromEnv = () =>
  [process.env.SIGNFOLD_WEBHOOK_SECRET ?? ''].filter((secret) => secret !== '');

/**
 * Listens on `host:port` and hands every request for `/webhooks` to `handler` (other paths: 404).
 * @param {import('../dist/webhooks/index.js').WebhookHandler} handler
 * @param {{ port: number, host: string, maxBodyBytes: number }} options
 */
export const serveWebhooks = async (handler, { port, host, maxBodyBytes }) => {
  const server = createServer((request, response) => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== '/webhooks') {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"error":"not found"}\n');
      return;
    }
    // Never throws: every answer (401, 413, 503 …) comes from the handler.
    void handleNodeRequest(handler, request, response, { maxBodyBytes });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(undefined));
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://${host}:${address.port}/webhooks`,
    port: address.port,
    /** Stops accepting deliveries and waits for those in flight. */
    stop: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeIdleConnections();
      await closed;
    },
  };
};

/**
 * Opens the log, catches the projector up with it, and listens for `POST /webhooks`.
 * @param {{ logPath: string, port?: number, host?: string, maxBodyBytes?: number,
 *   secrets?: string[], insecureNoSignature?: boolean }} options
 */
export const startServer = async ({
  logPath,
  port = 8080,
  host = '127.0.0.1',
  maxBodyBytes = MAX_BODY_BYTES,
  secrets = secretsFromEnv(),
  insecureNoSignature = false,
}) => {
  if (secrets.length === 0 && !insecureNoSignature) {
    throw new Error('no secret: set SIGNFOLD_WEBHOOK_SECRET (or run with --insecure-no-signature)');
  }
  // durability 'fsync' (the default): append resolves once the event is on stable storage.
  // A second server on the same log fails here: the log takes an exclusive writer lock.
  const opened = await openFileEventLog(logPath, { durability: 'fsync' });
  if (opened.isErr()) throw new Error(opened.error.message);
  const log = opened.value;
  // Policy skip: a bad event is quarantined; it must not stop the live projection.
  const projector = createProjector({ policy: 'skip' });
  const caughtUp = await projector.replay(log);
  if (caughtUp.isErr()) {
    await log.close();
    throw new Error(caughtUp.error.message);
  }
  const handler = createWebhookHandler({
    log,
    secrets,
    // A secret, when there is one, is always verified.
    insecureNoSignature: secrets.length === 0,
    projector,
    maxBodyBytes,
    deliveryHeader: DELIVERY_HEADER,
  });
  const serving = await serveWebhooks(handler, { port, host, maxBodyBytes });
  return {
    url: serving.url,
    port: serving.port,
    log,
    projector,
    /** Stops accepting deliveries, lets those in flight finish, then closes the log. */
    close: async () => {
      await serving.stop();
      await log.close();
    },
  };
};

// Listen only when run as a program, not when imported (by tests, or by your own server).
const invokedDirectly =
  process.argv[1] !== undefined &&
  import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (invokedDirectly) {
  const args = process.argv.slice(2);
  const insecureNoSignature = args.includes('--insecure-no-signature');
  const logPath = args.find((arg) => !arg.startsWith('--')) ?? 'events.ndjson';
  if (secretsFromEnv().length === 0 && !insecureNoSignature) {
    console.error('webhook-server: set SIGNFOLD_WEBHOOK_SECRET, or pass --insecure-no-signature');
    process.exit(2);
  }
  // Start-up failures (e.g. another server holds the log's writer lock) happen before listening.
  const port = Number(process.env.PORT ?? 8080);
  const running = await startServer({ logPath, port, insecureNoSignature }).catch(
    (/** @type {unknown} */ cause) => {
      console.error(`webhook-server: ${cause instanceof Error ? cause.message : String(cause)}`);
      process.exit(1);
    },
  );
  console.error(`listening on ${running.url}, appending to ${logPath}`);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      void running.close().then(() => process.exit(0));
    });
  }
}
