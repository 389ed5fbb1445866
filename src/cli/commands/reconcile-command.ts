/**
 * `signfold reconcile (LOG | --database URL) --fetch MODULE`: asks the
 * service's API about open requests (through the team's own fetch module)
 * and appends an observation record for each one the API shows further
 * along than the log (see `reconcile` in the engine). On a file log no
 * other process writes, it holds the log's writer for the whole run; on one
 * that `serve --log` holds, it reads the log without the lock and hands each
 * observation to serve, which appends it with its deliveries
 * (through-writer.ts). On PostgreSQL any number of writers may run beside it.
 */

import { err, ok } from 'neverthrow';
import { signRequestId } from '../../core/ids.js';
import { counted } from '../../core/plural.js';
import { visibleText } from '../../core/visible-text.js';
import type { AppendOutcome, EventLog, LogFailure } from '../../engine/event-log.js';
import { createProjector } from '../../engine/projector.js';
import {
  type FetchSignRequest,
  type ReconcileResult,
  type ReconcileSummary,
  reconcile,
} from '../../engine/reconcile.js';
import { openFileEventLogFor } from '../../store/file-event-log.js';
import { readFileEventLog } from '../../store/file-record-stream.js';
import { CliError, describeThrown, EXIT, type ExitCode, usageError } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import { parseCommand } from '../define-command.js';
import { RECONCILE_COMMAND } from '../definitions/reconcile.js';
import { importDefault } from '../module-default.js';
import { type EventSource, eventSourceOf, sourceLabel } from '../sources/event-source.js';
import { awaitStopSignal } from '../stop-signals.js';
import { askHolder, throughLine, type WriterHolder, writerHolderOf } from '../through-writer.js';
import { upcastersOf } from '../upcaster-module.js';

/** A log reconcile can read and append to, and how to let it go. */
interface OpenedLog {
  readonly log: EventLog<LogFailure>;
  readonly close: () => Promise<void>;
  /** The running writer the observations go through, when another process holds the file log. */
  readonly holder?: WriterHolder;
}

const loadFetch = async (path: string): Promise<FetchSignRequest> => {
  const fetch = await importDefault(
    path,
    (cause) => `reconcile: cannot load ${path}: ${describeThrown(cause)}`,
  );
  if (typeof fetch !== 'function') {
    throw new CliError(
      `reconcile: ${path} must export a function as its default export: async (signRequestId, { signal }) => the API's JSON`,
    );
  }
  return fetch as FetchSignRequest;
};

/** Who asks for the writer lock, and what helps when it is taken. */
const RECONCILE_SEEKER = {
  command: 'signfold reconcile',
  remedy:
    "reconcile appends its observations, so it needs the log's writer: stop 'signfold serve --log' (or the import) writing it, run reconcile, start it again (a sender retries the deliveries refused meanwhile), or keep the events in PostgreSQL ('--database'), where reconcile and serve run side by side",
} as const;

const appendedOf = (answer: Record<string, unknown>): AppendOutcome | undefined => {
  const first = Array.isArray(answer.appended) ? (answer.appended[0] as unknown) : undefined;
  if (typeof first !== 'object' || first === null) return undefined;
  const { position, duplicate } = first as Record<string, unknown>;
  if (typeof position !== 'number' || !Number.isSafeInteger(position) || position < 1) {
    return undefined;
  }
  return duplicate === true
    ? { kind: 'duplicate', position }
    : { kind: 'appended', position, receivedAt: new Date().toISOString() };
};

/**
 * The file log `holder` writes: read without the lock (what was committed),
 * each observation appended by the holder. A holder that stops answering
 * ends the run (a CliError): what it stored is stored once, the rest not.
 */
const throughHolder = async (
  path: string,
  holder: WriterHolder,
  dryRun: boolean,
): Promise<OpenedLog> => {
  const read: EventLog['read'] = (options) => readFileEventLog(path, options);
  const close = async (): Promise<void> => undefined;
  const refuse: EventLog['append'] = async () => {
    throw new Error('a dry run appends nothing');
  };
  // A dry run writes nothing: it reads the log beside its writer, as on a stopped log.
  if (dryRun) return { log: { read, append: refuse, close }, close };
  await askHolder(holder, { action: 'hello' }, 'nothing was changed');
  const append: EventLog['append'] = async (event) => {
    const id = (event as { signRequestId?: unknown }).signRequestId;
    const answer = await askHolder(
      holder,
      { action: 'observations', records: [event as Record<string, unknown>] },
      `the observation of sign request ${String(id)} may be stored or not (the log is whole either way): run reconcile again, which stores an observation once`,
      { refusalThrows: false },
    );
    const outcome = appendedOf(answer);
    if (outcome !== undefined) return ok(outcome);
    const why = typeof answer.error === 'string' ? visibleText(answer.error) : 'no position';
    return err({ kind: 'io', message: `pid ${holder.pid} answered: ${why}` });
  };
  return { log: { read, append, close }, close, holder };
};

const openFile = async (path: string, waitMs: number, dryRun: boolean): Promise<OpenedLog> => {
  const opened = await openFileEventLogFor(RECONCILE_SEEKER, path);
  if (opened.isErr()) {
    const { error } = opened;
    const holder = writerHolderOf(error, RECONCILE_SEEKER.command, waitMs);
    if (holder !== undefined) return throughHolder(path, holder, dryRun);
    throw new CliError(
      error.kind === 'locked' ? error.message : `reconcile: cannot open ${path}: ${error.message}`,
    );
  }
  const log = opened.value;
  return { log, close: () => log.close() };
};

const openLog = async (
  source: EventSource,
  waitMs: number,
  dryRun: boolean,
): Promise<OpenedLog> => {
  if (source.kind === 'file') return openFile(source.path, waitMs, dryRun);
  const { openDatabaseLog } = await import('../pg/reconcile-log.js');
  return openDatabaseLog(source);
};

const RESULT_WORDS: Readonly<Record<ReconcileResult['kind'], string>> = {
  agrees: 'agrees',
  repaired: 'repaired',
  unrepairable: 'unrepairable',
  failed: 'failed',
};

/** One line per request, every text from outside made visible. */
const describeResult = (result: ReconcileResult, dryRun: boolean): string => {
  const id = `sign request ${result.signRequestId}`;
  switch (result.kind) {
    case 'agrees':
      return `${id}: agrees`;
    case 'repaired': {
      const what = result.differences.map((d) => visibleText(d.message)).join('; ');
      const where = result.position === undefined ? '' : ` at position ${result.position}`;
      return `${id}: ${dryRun ? 'would repair' : `repaired${where}`}: ${what}`;
    }
    case 'unrepairable': {
      const what = result.differences.map((d) => visibleText(d.message)).join('; ');
      return `${id}: differs, not repairable (${visibleText(result.reason)}): ${what}`;
    }
    case 'failed':
      return `${id}: failed: ${visibleText(result.reason)}`;
  }
};

const summaryLine = (summary: ReconcileSummary, dryRun: boolean): string => {
  const { counts } = summary;
  const asked = summary.results.length;
  const parts = [
    `${counts.repaired} ${dryRun ? 'to repair' : RESULT_WORDS.repaired}`,
    `${counts.agrees} ${counts.agrees === 1 ? 'agrees' : 'agree'}`,
    `${counts.unrepairable} unrepairable`,
    `${counts.failed} failed`,
  ];
  const stopped = summary.stopped ? ' (stopped before the end)' : '';
  return `reconcile: ${counted(asked, 'sign request')} asked${stopped}: ${parts.join(', ')}`;
};

/**
 * Runs `reconcile` with `args`: exit 0 when every request asked about agrees
 * or was repaired (or would be, with `--dry-run`), 1 when a fetch failed or
 * a difference cannot be repaired, 2 on usage or I/O errors.
 */
export const reconcileCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const parsed = parseCommand(RECONCILE_COMMAND, args);
  const source = eventSourceOf(parsed);
  const { values } = parsed;
  if (values.fetch === undefined) throw usageError('missing --fetch MODULE');
  const ids = parsed.given('sign-request') ? values.signRequest.map(signRequestId) : undefined;
  const age = values.openLongerThan;
  if (age !== undefined && ids !== undefined) {
    throw usageError('give --sign-request ID or --open-longer-than DURATION, not both');
  }
  const { rate, fetchTimeout: timeout, dryRun, json } = values;
  if (source.kind !== 'file' && parsed.given('wait')) {
    throw usageError('--wait goes with a LOG (on PostgreSQL reconcile writes beside serve)');
  }
  const waitMs = values.wait * 1000;
  const fetch = await loadFetch(values.fetch);
  // The state compared with the API must be the one replay and the workers fold, upcasters
  // included: without them a request they close looks open, and its repair applies as a no-op.
  const upcasters = await upcastersOf(values.upcasters, 'reconcile');
  const opened = await openLog(source, waitMs, dryRun);
  if (opened.holder !== undefined) writeLines(io.stderr, [throughLine(opened.holder)]);
  // A stop signal ends the run between two requests: the log is closed (its lock released) cleanly.
  const stop = awaitStopSignal();
  const aborter = new AbortController();
  void stop.requested.then((signal) => aborter.abort(new Error(signal)));
  try {
    const projector = createProjector({ audit: false, policy: 'skip', upcasters });
    const replayed = await projector.replay(opened.log);
    if (replayed.isErr()) {
      throw new CliError(
        `reconcile: cannot read ${sourceLabel(source)}: ${replayed.error.message}`,
      );
    }
    const summary = await reconcile({
      state: projector.state(),
      log: opened.log,
      fetch,
      ...(ids === undefined ? {} : { signRequestIds: ids }),
      ...(age === undefined ? {} : { openLongerThanMs: age }),
      ...(rate === undefined ? {} : { ratePerSecond: rate }),
      ...(timeout === undefined ? {} : { fetchTimeoutMs: timeout * 1000 }),
      dryRun,
      signal: aborter.signal,
      ...(json
        ? {}
        : { onResult: (result) => writeLines(io.stdout, [describeResult(result, dryRun)]) }),
    });
    if (json) {
      io.stdout.write(
        `${JSON.stringify({ dryRun, stopped: summary.stopped, counts: summary.counts, results: summary.results })}\n`,
      );
    } else {
      writeLines(io.stdout, [summaryLine(summary, dryRun)]);
    }
    const troubled = summary.counts.failed + summary.counts.unrepairable > 0 || summary.stopped;
    return troubled ? EXIT.findings : EXIT.ok;
  } finally {
    stop.release();
    await opened.close();
  }
};
