#!/usr/bin/env node
// A webhook receiver with node:http: every delivery is appended to the NDJSON event log
// (durably, idempotently by delivery id) before it is acknowledged, then applied live to a
// projector. Explained step by step in docs/webhooks.md, which shows this file verbatim.
//
//   npm run build && node examples/webhook-server.js events.ndjson
//   curl -H 'x-delivery-id: d-1' --data @event.json http://127.0.0.1:8080/webhooks
import { realpathSync } from 'node:fs';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { createProjector, openFileEventLog } from '../dist/index.js';

/** The header carrying the delivery id. The service interface (docs/service-interface.md) names none: use your provider's. */
export const DELIVERY_HEADER = 'x-delivery-id';
/** Largest accepted body: the file log's default limit for one event (256 KiB). */
export const MAX_BODY_BYTES = 256 * 1024;

/** Why a body was refused before anything was stored, with the status to answer. */
export class Rejected extends Error {
  /** @param {number} status @param {string} message */
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * Reads the whole body, refusing more than `limit` bytes without buffering them.
 * @param {import('node:http').IncomingMessage} request
 * @param {number} limit
 * @returns {Promise<Buffer>}
 */
export const readBody = (request, limit) =>
  new Promise((resolve, reject) => {
    const tooLarge = () => new Rejected(413, `body larger than ${limit} bytes`);
    if (Number(request.headers['content-length']) > limit) {
      reject(tooLarge());
      return;
    }
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    request.on('data', (/** @type {Buffer} */ chunk) => {
      size += chunk.length;
      if (size > limit) {
        reject(tooLarge());
        // Stop buffering; the rest is drained and dropped while the 413 goes out.
        chunks.length = 0;
      } else {
        chunks.push(chunk);
      }
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

/**
 * Parses a body as JSON. Only text that is not JSON at all is refused (400): any JSON value is
 * stored, even an invalid event, so the projector can quarantine it and nothing is lost. A byte
 * order mark is not JSON (RFC 8259 forbids one on the wire), and the file log's reader refuses it
 * on any line but a file's first: it is kept, so JSON.parse refuses it here too.
 * @param {Buffer} body
 * @returns {{ event: unknown, text: string }}
 */
export const parseBody = (body) => {
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    throw new Rejected(400, 'body is not UTF-8');
  }
  try {
    return { event: JSON.parse(text), text };
  } catch (cause) {
    throw new Rejected(400, `body is not JSON: ${/** @type {Error} */ (cause).message}`);
  }
};

/**
 * Applies appended events to the projector in position order. Appends get increasing positions
 * in call order, but the handlers awaiting them may resume in any order; applying a later
 * position first would make the earlier one look already applied and drop it from live state.
 * @param {import('../dist/index.js').Projector} projector
 * @param {number} next the first position still to apply
 */
const inPositionOrder = (projector, next) => {
  /** @type {Map<number, { live: import('../dist/index.js').LiveEvent, done: (outcome: string) => void }>} */
  const waiting = new Map();
  /** @param {import('../dist/index.js').LiveEvent} live @returns {Promise<string>} */
  return (live) =>
    new Promise((done) => {
      waiting.set(live.position, { live, done });
      for (let item = waiting.get(next); item !== undefined; item = waiting.get(next)) {
        waiting.delete(next);
        next += 1;
        const result = projector.apply(item.live);
        item.done(result.isOk() ? result.value : 'halted');
      }
    });
};

/**
 * @param {import('node:http').ServerResponse} response
 * @param {number} status
 * @param {object} body
 */
export const reply = (response, status, body) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(`${JSON.stringify(body)}\n`);
};

/**
 * The delivery id of a request, from {@link DELIVERY_HEADER}; `undefined` when absent or blank.
 * @param {import('node:http').IncomingMessage} request
 */
export const deliveryIdOf = (request) => {
  const header = request.headers[DELIVERY_HEADER];
  return typeof header === 'string' && header.trim() !== '' ? header : undefined;
};

/**
 * Listens on `host:port` and hands every `POST /webhooks` to `deliver` (other paths get 404,
 * other methods 405). A {@link Rejected} thrown by `deliver` is answered with its status; any
 * other failure is logged and answered 500.
 * @param {(request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => Promise<void>} deliver
 * @param {{ port: number, host: string }} address
 */
export const serveWebhooks = async (deliver, { port, host }) => {
  /** @type {import('node:http').RequestListener} */
  const handle = async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path !== '/webhooks') return reply(response, 404, { error: 'not found' });
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST');
      return reply(response, 405, { error: 'use POST' });
    }
    try {
      await deliver(request, response);
    } catch (cause) {
      if (!(cause instanceof Rejected)) throw cause;
      // Close the connection so a sender still streaming an oversized body is cut off.
      if (cause.status === 413) response.setHeader('connection', 'close');
      reply(response, cause.status, { error: cause.message });
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
 * @param {{ logPath: string, port?: number, host?: string, maxBodyBytes?: number }} options
 */
export const startServer = async ({ logPath, port = 8080, host = '127.0.0.1', maxBodyBytes }) => {
  const limit = maxBodyBytes ?? MAX_BODY_BYTES;
  // durability 'fsync' (the default): append resolves once the event is on stable storage.
  // A second server on the same log fails here: the log takes an exclusive writer lock.
  const opened = await openFileEventLog(logPath, { durability: 'fsync' });
  if (opened.isErr()) throw new Error(opened.error.message);
  const log = opened.value;
  // Policy skip: a bad event is quarantined; it must not stop the live projection.
  const projector = createProjector({ policy: 'skip' });
  const caughtUp = await projector.replay(log);
  if (caughtUp.isErr()) throw new Error(caughtUp.error.message);
  const apply = inPositionOrder(projector, log.lastPosition + 1);

  /** @type {Parameters<typeof serveWebhooks>[0]} */
  const deliver = async (request, response) => {
    const { event, text } = parseBody(await readBody(request, limit));
    const deliveryId = deliveryIdOf(request);
    const appended = await log.append(event, deliveryId === undefined ? {} : { deliveryId });
    if (appended.isErr()) {
      const { kind, message } = appended.error;
      // Not stored: a non-2xx answer makes the sender deliver it again later.
      if (kind === 'too-large') return reply(response, 413, { error: message });
      response.setHeader('retry-after', '5');
      return reply(response, 503, { error: message });
    }
    const stored = appended.value;
    if (stored.kind === 'duplicate') {
      // Stored (and applied) when first delivered: acknowledge again, change nothing.
      return reply(response, 200, { position: stored.position, duplicate: true });
    }
    const { position, receivedAt } = stored;
    const outcome = await apply({ position, event, receivedAt, raw: text });
    return reply(response, 200, { position, duplicate: false, outcome });
  };

  const serving = await serveWebhooks(deliver, { port, host });
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
  const logPath = process.argv[2] ?? 'events.ndjson';
  // Start-up failures (e.g. another server holds the log's writer lock) happen before listening.
  const running = await startServer({ logPath, port: Number(process.env.PORT ?? 8080) }).catch(
    (/** @type {unknown} */ cause) => {
      console.error(`webhook-server: ${cause instanceof Error ? cause.message : String(cause)}`);
      process.exit(1);
    },
  );
  console.error(`listening on ${running.url}, appending to ${logPath}`);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      running.close().then(() => process.exit(0));
    });
  }
}
