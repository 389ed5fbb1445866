/**
 * `serve --log FILE --reactors MODULE`: the file reactor runner in the
 * server process, woken after each stored delivery, its counts exposed as
 * gauges. It holds `FILE.reactors.lock` like `signfold react`, so a `react`
 * already running on the log makes `serve` refuse to start.
 */

import type { AttemptObserver } from '../../core/reactors/attempt-result.js';
import type { EffectsReport } from '../../core/reactors/effects-report.js';
import type { Reactor } from '../../core/reactors/reactor-types.js';
import type { Upcaster } from '../../core/upcasters/upcaster-types.js';
import { NO_TRACING, type Tracing } from '../../engine/tracing.js';
import { createFileReactorRunner } from '../../store/reactors/file-reactor-runner.js';
import { CliError } from '../cli-error.js';
import { fileGaugeReader } from '../metrics/file-gauges.js';
import type { GaugeReader } from '../metrics/projection-metrics.js';
import { loadReactorModule } from '../reactor-module.js';
import { loadUpcasterModule } from '../upcaster-module.js';
import type { ServeLog } from './request-log.js';

/** The reactors a server runs. */
export interface ServeReactors {
  /** The effects report of the runner's state (for the gauges). */
  report(): EffectsReport;
  /** The projection and reactor gauges of the runner, read at each scrape. */
  readonly gauges: GaugeReader;
  /** A delivery was stored: react now rather than at the next poll. */
  notify(): void;
  /** Stops the runner (running effects get its shutdown grace) and waits for it. */
  stop(): Promise<void>;
}

/** Loads the reactors of `--reactors MODULE`, before anything is opened (a bad module changes nothing). */
export const loadServeReactors = (modulePath: string): Promise<Reactor[]> =>
  loadReactorModule(modulePath, 'serve', 'refuse-sql');

/** Loads the upcasters of `--upcasters MODULE` (none without it), before anything is opened. */
export const loadServeUpcasters = async (modulePath: string | undefined): Promise<Upcaster[]> =>
  modulePath === undefined ? [] : loadUpcasterModule(modulePath, 'serve');

/** Starts `reactors` on `logPath`; throws a CliError if they cannot start (the lock is held). */
export const startServeReactors = async (
  logPath: string,
  reactors: readonly Reactor[],
  log: ServeLog,
  upcasters: readonly Upcaster[] = [],
  onAttempt?: AttemptObserver,
  tracing: Tracing = NO_TRACING,
): Promise<ServeReactors> => {
  const controller = new AbortController();
  let started: () => void = () => undefined;
  const ready = new Promise<undefined>((resolve) => {
    started = () => resolve(undefined);
  });
  const runner = createFileReactorRunner({
    logPath,
    reactors,
    upcasters,
    tracing,
    onStarted: () => started(),
    ...(onAttempt === undefined ? {} : { onAttempt }),
  });
  const running = runner.run(controller.signal);
  const first = await Promise.race([ready, running]);
  if (first?.isErr()) throw new CliError(`--reactors: ${first.error.message}`);
  void running.then((ended) => {
    if (ended.isErr()) log.event('error', { message: `reactors stopped: ${ended.error.message}` });
  });
  return {
    report: () => runner.report(),
    gauges: fileGaugeReader(logPath, runner),
    notify: () => runner.notify(),
    stop: async () => {
      controller.abort();
      await running;
    },
  };
};

/** Reactors that can be stopped for a while (`forget` through serve rewrites their journal). */
export interface PausableReactors extends ServeReactors {
  /**
   * Stops the runner (releasing the reactor lock), runs `step`, and starts
   * the runner again from its journal; resolves with what `step` resolved.
   * If the runner cannot start again, serve goes on without reactors and
   * logs why.
   */
  pausedFor<T>(step: () => Promise<T>): Promise<T>;
}

/** `first`, and `start` to start the runner again after a pause. */
export const pausableReactors = (
  first: ServeReactors,
  start: () => Promise<ServeReactors>,
  log: ServeLog,
): PausableReactors => {
  let current = first;
  let paused = false;
  let stopping = false;
  let pause: Promise<unknown> = Promise.resolve();
  return {
    report: () => current.report(),
    gauges: () => current.gauges(),
    notify: () => {
      if (!paused) current.notify();
    },
    stop: async () => {
      stopping = true;
      await pause.catch(() => undefined);
      await current.stop();
    },
    pausedFor: <T>(step: () => Promise<T>): Promise<T> => {
      const run = (async () => {
        paused = true;
        await current.stop();
        try {
          return await step();
        } finally {
          if (!stopping) {
            try {
              current = await start();
            } catch (cause) {
              log.event('error', {
                message: `reactors did not start again after forget: ${(cause as Error).message}; restart serve`,
              });
            }
          }
          paused = false;
        }
      })();
      pause = run;
      return run;
    },
  };
};
