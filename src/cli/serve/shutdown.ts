/**
 * How `signfold serve` stops on SIGTERM or SIGINT: stop accepting
 * connections, end keep-alive, let every request in progress finish (its
 * append and its answer included; one whose body is still arriving after
 * {@link BODY_GRACE_MS} is cut, as it cannot have been appended), close the
 * log (releasing a file log's lock), all within {@link SHUTDOWN_BOUND_MS}.
 * Past the bound it gives up at once, without waiting for the storage: one
 * line, exit 1. A delivery cut off was never acknowledged, so its sender
 * delivers it again: nothing acknowledged is lost either way.
 */
import type { Server } from 'node:http';
import { counted } from '../../core/plural.js';
import { CliError, EXIT, type ExitCode } from '../cli-error.js';
import type { InFlightRequests } from './in-flight.js';
import type { ServeLog } from './request-log.js';
import type { ServeStorage } from './storage.js';

/** The documented bound on a shutdown (docs/cli.md, serve). */
export const SHUTDOWN_BOUND_MS = 10_000;

/**
 * How long connections that no longer carry a request may take to close by
 * themselves (after their last answer was flushed) before they are cut.
 */
const LINGER_MS = 1000;

/**
 * How long a request whose body is still arriving when the shutdown begins
 * may take to complete it. A body in transit completes in milliseconds; one
 * still incomplete after this is stalled, and waiting for it until the bound
 * would turn a sender's stall into a failed stop (exit 1).
 */
const BODY_GRACE_MS = 2000;

/** What a shutdown acts on. */
export interface Running {
  readonly server: Server;
  readonly inFlight: InFlightRequests;
  readonly storage: ServeStorage;
  readonly log: ServeLog;
  /** Makes the answers still to be written close their connections. */
  readonly stopKeepingAlive: () => void;
  /** Cuts the requests still receiving their body (none of them has an append in progress). */
  readonly cutIncompleteBodies?: () => void;
  /**
   * Called at the bound with the error the shutdown ends in, before anything
   * else is awaited: a storage that hangs (an append or a close that never
   * returns: a frozen database host) would otherwise hold the exit past the
   * bound, for ever. `signfold serve` reports it and exits there.
   */
  readonly giveUp?: (error: CliError) => void;
}

/** Resolves `true` when `promise` settles within `ms`, `false` otherwise. */
const settlesWithin = (promise: Promise<unknown>, ms: number): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([promise.then(() => true), late]).finally(() => clearTimeout(timer));
};

/** Stops `running` as the module comment says; `signal` is named in the log lines. */
export const shutDown = async (
  running: Running,
  signal: string,
  boundMs = SHUTDOWN_BOUND_MS,
): Promise<ExitCode> => {
  const { server, inFlight, storage, log } = running;
  log.event('stopping', { signal, inFlight: inFlight.count, boundMs });
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  running.stopKeepingAlive();
  server.closeIdleConnections();
  const finished = (async () => {
    // A sender stalled mid-body would hold the exit up to the bound (and exit 1) for a request
    // that cannot have been appended: a body still arriving gets BODY_GRACE_MS, then it is cut.
    if (!(await settlesWithin(inFlight.idle(), BODY_GRACE_MS))) running.cutIncompleteBodies?.();
    await inFlight.idle();
    // Every answer is written; connections still open carry no request (or half of one).
    if (!(await settlesWithin(closed, LINGER_MS))) server.closeAllConnections();
    await storage.close();
  })();
  if (!(await settlesWithin(finished, boundMs))) {
    server.closeAllConnections();
    const error = new CliError(
      `serve: shutdown did not finish within ${boundMs / 1000} s (${counted(inFlight.count, 'request')} still in progress): exiting without waiting for them`,
      { exitCode: EXIT.findings },
    );
    running.giveUp?.(error);
    throw error;
  }
  log.event('stopped', { signal });
  return EXIT.ok;
};
