/**
 * `serve --log FILE` takes the requests of `reconcile` and `forget` run on
 * the log it holds (src/store/writer-requests.ts): it looks for them every
 * `POLL_MS`, carries them out one at a time with its own log, and logs one
 * line for each.
 */
import { err, ok } from 'neverthrow';
import type { AppendOutcome, EventLog, NewRecord } from '../../engine/event-log.js';
import { forgetHeldFileLog } from '../../store/forget/forget-file-log.js';
import { serveWriterRequests } from '../../store/writer-requests.js';
import type { FileServeStorage } from './file-storage.js';
import type { ServeLog } from './request-log.js';

/** How often serve looks for requests beside its log. */
const POLL_MS = 100;

/** The loop taking requests; `stop` waits for the one being carried out. */
export interface WriterRequestLoop {
  stop(): Promise<void>;
}

/** What serve gives the loop. */
export interface WriterRequestSetup {
  readonly path: string;
  readonly storage: FileServeStorage;
  /** Where observations are appended: serve's log, feeding the read API if it runs. */
  readonly append: Pick<EventLog, 'append'>['append'];
  /** Told after observations were appended (the reactors react now). */
  readonly onAppended: () => void;
  /** Runs forget's step within it (serve's reactors stop for it: forget rewrites their journal). */
  readonly around?: <T>(step: () => Promise<T>) => Promise<T>;
  /** Why this serve cannot run forget (the read API), if it cannot. */
  readonly forgetRefusal: string | undefined;
  readonly log: ServeLog;
}

/** Starts taking requests beside `setup.path`. */
export const startWriterRequests = (setup: WriterRequestSetup): WriterRequestLoop => {
  const { path, storage, log } = setup;
  let stopped = false;
  let wake: () => void = () => undefined;
  const appendBatch = async (records: readonly NewRecord[]) => {
    const results = await Promise.all(
      records.map(({ event, ...options }) => setup.append(event, options)),
    );
    const outcomes: AppendOutcome[] = [];
    for (const result of results) {
      if (result.isErr()) return err(result.error);
      outcomes.push(result.value);
    }
    setup.onAppended();
    const stored = outcomes.filter((o) => o.kind === 'appended').map((o) => o.position);
    log.event('reconcile', {
      message: `reconcile through serve: ${stored.length} of ${outcomes.length} observations stored${stored.length === 0 ? ' (the others were stored before)' : ` at ${stored.join(', ')}`}`,
    });
    return ok(outcomes);
  };
  const forget =
    setup.forgetRefusal === undefined
      ? async (request: Parameters<typeof forgetHeldFileLog>[1]) => {
          let heldMs = 0;
          const around = setup.around ?? (<T>(step: () => Promise<T>) => step());
          const forgotten = await around(() =>
            storage.exclusive(async () => {
              const started = Date.now();
              try {
                return await forgetHeldFileLog(path, request);
              } finally {
                heldMs = Date.now() - started;
              }
            }, 'forget'),
          );
          log.event('forget', {
            message: forgotten.isOk()
              ? `forget through serve: erasure ${forgotten.value.erasure}, appends held back for ${heldMs} ms`
              : `forget through serve failed: ${forgotten.error.message}`,
          });
          return forgotten;
        }
      : undefined;
  const handlers = {
    appendBatch,
    ...(forget === undefined ? {} : { forget }),
    ...(setup.forgetRefusal === undefined ? {} : { forgetRefusal: setup.forgetRefusal }),
  };
  const running = (async () => {
    while (!stopped) {
      await serveWriterRequests(path, handlers).catch((cause: unknown) => {
        log.event('error', { message: `requests beside ${path}: ${String(cause)}` });
      });
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      wake();
      await running;
    },
  };
};
