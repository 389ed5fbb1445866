/**
 * `signfold serve`: receives webhook deliveries over HTTP, verifies them,
 * appends them durably (file log or PostgreSQL) before answering, and
 * serves `/healthz`, `/readyz` and `/metrics`. Runs until SIGTERM or SIGINT.
 * Loaded only when `serve` runs (it alone loads node:http's server and
 * prom-client); `--database` alone loads `pg`.
 */
import { createServer } from 'node:http';
import type { Tracing } from '../../engine/tracing.js';
import { DEFAULT_DELIVERY_HEADER } from '../../webhooks/delivery-id.js';
import { STANDARD_WEBHOOKS_HEADERS } from '../../webhooks/standard-webhooks.js';
import { createWebhookHandler } from '../../webhooks/webhook-handler.js';
import type { WebhookHandlerOptions } from '../../webhooks/webhook-types.js';
import { type CliError, EXIT, type ExitCode } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import { withoutPassword } from '../database-url.js';
import { withPool } from '../pg/pool.js';
import { awaitStopSignal, type StopRequest } from '../stop-signals.js';
import { loadTracing } from '../tracing-module.js';
import { watchAppends } from './append-watch.js';
import { openFileStorage } from './file-storage.js';
import { InFlightRequests } from './in-flight.js';
import { listen } from './listen.js';
import { createServeMetrics } from './metrics.js';
import { parseServeOptions, type ServeOptions } from './options.js';
import {
  loadServeReactors,
  loadServeUpcasters,
  type ServeReactors,
  startServeReactors,
} from './reactors.js';
import { type ServeLog, serveLog } from './request-log.js';
import { serveRoutes } from './routes.js';
import { type SecretSetting, webhookSecrets } from './secrets.js';
import { shutDown } from './shutdown.js';
import type { ServeStorage } from './storage.js';

/** What one run of the server needs besides its storage. */
interface ServeContext {
  readonly options: ServeOptions;
  readonly secrets: SecretSetting;
  readonly io: CliIO;
  readonly log: ServeLog;
  readonly stop: StopRequest;
  /** `--reactors` on a file log: started before listening. */
  readonly reactors?: ServeReactors | undefined;
  /** `--tracing`: spans of each delivery and its append. */
  readonly tracing: Tracing;
}

/** The header the delivery id is read from: Standard Webhooks' signed `webhook-id`, or the flag's. */
const deliveryHeaderOf = (options: ServeOptions): string =>
  options.scheme === 'standard-webhooks'
    ? STANDARD_WEBHOOKS_HEADERS.id
    : (options.deliveryHeader ?? DEFAULT_DELIVERY_HEADER);

/** The handler's options for the scheme and the flags of the signature and the delivery id. */
const verificationOptions = (
  options: ServeOptions,
): Pick<WebhookHandlerOptions, 'signature' | 'deliveryHeader' | 'requireDeliveryId'> => {
  if (options.scheme === 'standard-webhooks') {
    const toleranceSeconds = options.timestamp?.toleranceSeconds;
    return {
      signature:
        toleranceSeconds === undefined
          ? 'standard-webhooks'
          : { scheme: 'standard-webhooks', toleranceSeconds },
    };
  }
  const { signatureHeader, signatureEncoding, signaturePrefix, timestamp } = options;
  const header = timestamp?.header;
  return {
    signature: {
      ...(signatureHeader === undefined ? {} : { header: signatureHeader }),
      ...(signatureEncoding === undefined ? {} : { encoding: signatureEncoding }),
      ...(signaturePrefix === undefined ? {} : { prefix: signaturePrefix }),
      ...(timestamp === undefined || header === undefined
        ? {}
        : { timestamp: { header, toleranceSeconds: timestamp.toleranceSeconds } }),
    },
    deliveryHeader: options.deliveryHeader ?? DEFAULT_DELIVERY_HEADER,
    requireDeliveryId: options.requireDeliveryId,
  };
};

/** Serves on open `storage` until stopped, then closes it (also on failure). */
const serveOn = async (storage: ServeStorage, context: ServeContext): Promise<ExitCode> => {
  const { options, secrets, io, log, stop, reactors, tracing } = context;
  let stopping = false;
  try {
    const metrics = await createServeMetrics(reactors?.report);
    const appends = watchAppends(storage.log, options.appendTimeoutMs, {
      onTimeout: () => metrics.timedOut(),
      // One line when deliveries stop being stored and one when they are again, whatever the
      // number of deliveries refused meanwhile (each has its own request line).
      onChange: (change) =>
        'unavailable' in change
          ? log.event('storage-unavailable', { reason: change.unavailable })
          : log.event('storage-available', { afterMs: change.availableAfterMs }),
    });
    const handler = createWebhookHandler({
      log: appends.log,
      secrets: secrets.verify ? secrets.secrets : [],
      insecureNoSignature: !secrets.verify,
      ...verificationOptions(options),
      maxBodyBytes: options.maxBodyBytes,
      tracing,
      onOutcome: (outcome) => {
        metrics.count(outcome);
        if (outcome.kind === 'stored') reactors?.notify();
      },
    });
    if (!secrets.verify) {
      log.event('warning', {
        message:
          '--insecure-no-signature: deliveries are not verified; whoever reaches this port can store events',
      });
    }
    // A signal while the log was being opened: stop before listening.
    if (stop.signal() !== undefined) return EXIT.ok;
    const inFlight = new InFlightRequests();
    const routes = serveRoutes({
      handler,
      maxBodyBytes: options.maxBodyBytes,
      deliveryHeader: deliveryHeaderOf(options),
      metrics,
      storage,
      stalled: appends.stalled,
      log,
      inFlight,
      stopping: () => stopping,
    });
    // The listener answers every failure itself; only writing its log line could still throw
    // (a stderr that is gone), and that must not take the server down with it.
    const server = createServer((request, response) => {
      routes.listener(request, response).catch(() => undefined);
    });
    const url = await listen(server, options.port, options.host);
    // Once listening, an error of the listening socket (too many open files on accept) is
    // logged, not fatal: the connections in progress still get their answers.
    server.on('error', (cause) => log.event('error', { message: String(cause) }));
    writeLines(io.stdout, [`listening on ${url} (${storage.description})`]);
    const signal = await stop.requested;
    stopping = true;
    const { stopKeepingAlive, cutIncompleteBodies } = routes;
    const giveUp = (error: CliError): void => {
      // Past the bound the storage may never settle (its close waits for a hung append, the
      // pool for its client): the one line `run` would print, and the exit, happen here.
      writeLines(io.stderr, [`signfold: ${error.message}`]);
      process.exit(error.exitCode);
    };
    const running = {
      server,
      inFlight,
      storage,
      log,
      stopKeepingAlive,
      cutIncompleteBodies,
      giveUp,
    };
    return await shutDown(running, signal);
  } finally {
    stopping = true;
    await reactors?.stop();
    await storage.close();
  }
};

/**
 * How long, once the server has stopped, a connection that cannot close
 * politely may keep the process alive. On a silent network (a lost NAT
 * entry) the database never acknowledges the goodbye of an idle connection,
 * and its socket would hold the exit for ever; the exit code is decided by
 * then, and nothing is in flight.
 */
const EXIT_LINGER_MS = 1000;

/** Exits with the code decided by then, unless the process ends by itself first. */
const exitSoon = (): void => {
  setTimeout(() => process.exit(), EXIT_LINGER_MS).unref();
};

/** `signfold serve (--log FILE | --database URL) [options]`. */
export const serveCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const options = parseServeOptions(args);
  const secrets = webhookSecrets(
    options.secretEnv,
    process.env,
    options.insecureNoSignature,
    options.scheme,
  );
  const log = serveLog(io.stderr);
  const stop = awaitStopSignal();
  const traced = await loadTracing(options.tracing, 'serve');
  const context: ServeContext = { options, secrets, io, log, stop, tracing: traced.tracing };
  try {
    const { storage } = options;
    if (storage.kind === 'file') {
      const warn = (message: string): void => log.event('warning', { message });
      const loaded =
        options.reactors === undefined ? undefined : await loadServeReactors(options.reactors);
      const upcasters = await loadServeUpcasters(options.upcasters);
      const opened = await openFileStorage(storage.path, warn);
      let reactors: ServeReactors | undefined;
      try {
        reactors =
          loaded === undefined
            ? undefined
            : await startServeReactors(storage.path, loaded, log, upcasters, traced.tracing);
      } catch (cause) {
        await opened.close();
        throw cause;
      }
      return await serveOn(opened, { ...context, reactors });
    }
    const { openPostgresStorage } = await import('./postgres-storage.js');
    const poolOptions = { connectTimeoutMs: storage.connectTimeoutMs, who: 'signfold serve' };
    const hide = (text: string): string => withoutPassword(text, storage.url);
    return await withPool(storage.url, poolOptions, async (pool) => {
      const opened = await openPostgresStorage(pool, storage.schema, hide, options.appendTimeoutMs);
      try {
        return await serveOn(opened, context);
      } finally {
        exitSoon();
      }
    });
  } finally {
    stop.release();
    await traced.close();
  }
};
