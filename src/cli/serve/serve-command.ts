/**
 * `signfold serve`: receives webhook deliveries over HTTP, verifies them,
 * appends them durably (file log or PostgreSQL) before answering, and
 * serves `/healthz`, `/readyz` and `/metrics`. Runs until SIGTERM or SIGINT.
 * Loaded only when `serve` runs (it alone loads node:http's server and
 * prom-client); `--database` alone loads `pg`.
 */
import { createServer } from 'node:http';
import type { AttemptObserver } from '../../core/reactors/attempt-result.js';
import type { Reactor } from '../../core/reactors/reactor-types.js';
import type { Tracing } from '../../engine/tracing.js';
import { schemaName } from '../../postgres/schema-name.js';
import { DEFAULT_DELIVERY_HEADER } from '../../webhooks/delivery-id.js';
import { STANDARD_WEBHOOKS_HEADERS } from '../../webhooks/standard-webhooks.js';
import { createWebhookHandler } from '../../webhooks/webhook-handler.js';
import type { WebhookHandlerOptions } from '../../webhooks/webhook-types.js';
import { type CliError, EXIT, type ExitCode } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import { withoutPassword } from '../database-url.js';
import { listen } from '../listen.js';
import { openPostgresGauges, type PostgresGauges } from '../metrics/postgres-gauges.js';
import type { ProjectionMetricsOptions } from '../metrics/projection-metrics.js';
import { withPool } from '../postgres-pool.js';
import { awaitStopSignal, type StopRequest } from '../stop-signals.js';
import { loadTracing } from '../tracing-module.js';
import { withAppendDeadline } from './append-deadline.js';
import { watchAppends } from './append-watch.js';
import { openFileStorage } from './file-storage.js';
import { InFlightRequests } from './in-flight.js';
import { createServeMetrics } from './metrics.js';
import { parseServeOptions, type ServeOptions } from './options.js';
import {
  loadServeReactors,
  loadServeUpcasters,
  type PausableReactors,
  pausableReactors,
  type ServeReactors,
  startServeReactors,
} from './reactors.js';
import type { ReadApi, ReadApiSetup } from './read-api/start-read-api.js';
import { type ServeLog, serveLog } from './request-log.js';
import { serveRoutes } from './routes.js';
import { type SecretSetting, webhookSecrets } from './secrets.js';
import { shutDown } from './shutdown.js';
import type { ServeStorage } from './storage.js';
import { startWriterRequests, type WriterRequestLoop } from './writer-requests.js';

/** What one run of the server needs besides its storage. */
interface ServeContext {
  readonly options: ServeOptions;
  readonly secrets: SecretSetting;
  readonly io: CliIO;
  readonly log: ServeLog;
  readonly stop: StopRequest;
  /** `--reactors` on a file log: started before listening. */
  readonly reactors?: ServeReactors | undefined;
  /** The projection and reactor metrics (docs/cli.md#metrics): with `--reactors` or `--database`. */
  readonly projection?: ProjectionMetricsOptions | undefined;
  /** Where the reactors' attempts are counted, once the metrics exist. */
  readonly attempts: { current?: AttemptObserver };
  /** `--read-token-env`: the read API on this storage, closed with it. */
  readonly readApi?: ReadApi | undefined;
  /** `--tracing`: spans of each delivery and its append. */
  readonly tracing: Tracing;
  /** On a file log: the requests of `reconcile` and `forget` beside it, stopped before it closes. */
  readonly requests?: WriterRequestLoop | undefined;
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
  const { options, secrets, io, log, stop, reactors, readApi, tracing } = context;
  let stopping = false;
  try {
    const metrics = await createServeMetrics(reactors?.report, context.projection);
    context.attempts.current = metrics.attempted;
    // The storage answers an append at its deadline (see ServeStorage.log); this counts it.
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
      readApi: readApi?.routes,
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
      log.flush();
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
    await context.requests?.stop();
    await reactors?.stop();
    await readApi?.close();
    await storage.close();
  }
};

/**
 * Why a serve cannot run `forget` on its log: the read API keeps the names
 * in memory. (Its reactors are stopped for the forget and started again.)
 */
const forgetRefusalOf = (path: string, readApi: boolean): string | undefined =>
  readApi
    ? `signfold forget cannot go through this 'signfold serve' on ${path}: it runs the read API (--read-token-env), which keeps the names in memory; stop serve, run forget, start serve again (a sender retries the deliveries refused meanwhile, and later ones for the person are stored with the pseudonym)`
    : undefined;

/** `--read-token-env`, its tokens read now (before anything is opened), or `undefined` without it. */
const readApiSetupOf = async (options: ServeOptions): Promise<ReadApiSetup | undefined> => {
  if (options.readTokenEnv.length === 0) return undefined;
  const { readApiSetup } = await import('./read-api/start-read-api.js');
  return readApiSetup(options.readTokenEnv, process.env);
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
  const reads = await readApiSetupOf(options);
  const log = serveLog(io.stderr);
  const stop = awaitStopSignal();
  const attempts: ServeContext['attempts'] = {};
  const traced = await loadTracing(options.tracing, 'serve');
  const context: ServeContext = {
    options,
    secrets,
    io,
    log,
    stop,
    attempts,
    tracing: traced.tracing,
  };
  try {
    const { storage } = options;
    if (storage.kind === 'file') {
      const warn = (message: string): void => log.event('warning', { message });
      const loaded =
        options.reactors === undefined ? undefined : await loadServeReactors(options.reactors);
      const upcasters = await loadServeUpcasters(options.upcasters);
      const opened = await openFileStorage(storage.path, warn);
      let reactors: PausableReactors | undefined;
      let readApi: Awaited<ReturnType<ReadApiSetup['onFile']>> | undefined;
      try {
        readApi = await reads?.onFile(storage.path, opened, upcasters, log);
        const startReactors = (reactorList: readonly Reactor[]) => () =>
          startServeReactors(
            storage.path,
            reactorList,
            log,
            upcasters,
            (reactor, result) => attempts.current?.(reactor, result),
            traced.tracing,
          );
        reactors =
          loaded === undefined
            ? undefined
            : pausableReactors(await startReactors(loaded)(), startReactors(loaded), log);
      } catch (cause) {
        await opened.close();
        throw cause;
      }
      const projection =
        reactors === undefined || loaded === undefined
          ? undefined
          : {
              read: reactors.gauges,
              reactors: loaded.map((reactor) => reactor.name),
              partitioned: false,
              counters: true,
            };
      // The file log's deadline is serve's (see append-deadline.ts), outermost: what commits
      // after it still reaches the read model.
      const bounded = withAppendDeadline(readApi?.storage ?? opened, options.appendTimeoutMs);
      // `reconcile` and `forget` on this log go through this process (writer-requests.ts).
      const requests = startWriterRequests({
        path: storage.path,
        storage: opened,
        append: (readApi?.storage ?? opened).log.append,
        onAppended: () => reactors?.notify(),
        ...(reactors === undefined ? {} : { around: reactors.pausedFor }),
        forgetRefusal: forgetRefusalOf(storage.path, readApi !== undefined),
        log,
      });
      return await serveOn(bounded, {
        ...context,
        reactors,
        projection,
        readApi,
        requests,
      });
    }
    const { openPostgresStorage } = await import('./postgres-storage.js');
    const poolOptions = { connectTimeoutMs: storage.connectTimeoutMs, who: 'signfold serve' };
    const hide = (text: string): string => withoutPassword(text, storage.url);
    return await withPool(storage.url, poolOptions, async (pool) => {
      const opened = await openPostgresStorage(pool, storage.schema, hide, options.appendTimeoutMs);
      let gauges: PostgresGauges | undefined;
      try {
        // The workers' lag and effects, read from the tables at each scrape: a serve is often
        // the one process of a deployment that is always up and always scraped.
        const schema = schemaName(storage.schema);
        gauges = schema.isOk()
          ? await openPostgresGauges(storage.url, schema.value, storage.connectTimeoutMs)
          : undefined;
        const projection =
          gauges === undefined
            ? undefined
            : { read: gauges.read, reactors: [], partitioned: true, counters: false };
        let readApi: ReadApi | undefined;
        try {
          readApi = await reads?.onDatabase(storage.url, storage.schema, storage.connectTimeoutMs);
        } catch (cause) {
          await opened.close();
          throw cause;
        }
        return await serveOn(opened, { ...context, projection, readApi });
      } finally {
        await gauges?.close();
        exitSoon();
      }
    });
  } finally {
    stop.release();
    await traced.close();
  }
};
