/**
 * `signfold reconcile (LOG | --database URL) --fetch MODULE`: asks the
 * service's API about open requests (through the team's own fetch module)
 * and appends an observation record for each one the API shows further
 * along than the log (see `reconcile` in the engine). It holds the log's
 * writer for the whole run, so what it compares is what it appends after:
 * on a file log that means no `serve` at the same time; on PostgreSQL any
 * number of writers may run beside it.
 */
import { signRequestId } from '../../core/ids.js';
import { counted } from '../../core/plural.js';
import { visibleText } from '../../core/visible-text.js';
import type { EventLog, LogFailure } from '../../engine/event-log.js';
import { createProjector } from '../../engine/projector.js';
import {
  type FetchSignRequest,
  type ReconcileResult,
  type ReconcileSummary,
  reconcile,
} from '../../engine/reconcile.js';
import { openFileEventLogFor } from '../../store/file-event-log.js';
import { booleanFlag, idFlag, type OptionTable, parseCommandArgs, stringFlag } from '../args.js';
import { CliError, describeThrown, EXIT, type ExitCode, usageError } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import { durationFlag } from '../duration-flag.js';
import { importDefault } from '../module-default.js';
import { DATABASE_OPTIONS } from '../pg/pool.js';
import { type EventSource, eventSourceOf, sourceLabel } from '../sources/event-source.js';
import { awaitStopSignal } from '../stop-signals.js';
import { UPCASTERS_OPTION, upcastersFlag } from '../upcaster-module.js';

/** The flags of `reconcile`. */
export const RECONCILE_OPTIONS: OptionTable = {
  fetch: { type: 'string' },
  'open-longer-than': { type: 'string' },
  'sign-request': { type: 'string', multiple: true },
  rate: { type: 'string' },
  'fetch-timeout': { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  ...DATABASE_OPTIONS,
  ...UPCASTERS_OPTION,
};

/** A log reconcile can read and append to, and how to let it go. */
interface OpenedLog {
  readonly log: EventLog<LogFailure>;
  readonly close: () => Promise<void>;
}

const positiveNumber = (flag: string, value: string): number => {
  const parsed = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed > 0) || !Number.isFinite(parsed)) {
    throw usageError(`${flag} must be a positive number (got '${value}')`);
  }
  return parsed;
};

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

const openFile = async (path: string): Promise<OpenedLog> => {
  const opened = await openFileEventLogFor(RECONCILE_SEEKER, path);
  if (opened.isErr()) {
    const { error } = opened;
    throw new CliError(
      error.kind === 'locked' ? error.message : `reconcile: cannot open ${path}: ${error.message}`,
    );
  }
  const log = opened.value;
  return { log, close: () => log.close() };
};

const openLog = async (source: EventSource): Promise<OpenedLog> => {
  if (source.kind === 'file') return openFile(source.path);
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
  const parsed = parseCommandArgs(args, RECONCILE_OPTIONS);
  const source = eventSourceOf(parsed);
  const fetchPath = stringFlag(parsed, 'fetch');
  if (fetchPath === undefined) throw usageError('missing --fetch MODULE');
  const ids = (parsed.values['sign-request'] as string[] | undefined)?.map((raw) =>
    signRequestId(idFlag('--sign-request', raw)),
  );
  const age = stringFlag(parsed, 'open-longer-than');
  if (age !== undefined && ids !== undefined) {
    throw usageError('give --sign-request ID or --open-longer-than DURATION, not both');
  }
  const rate = stringFlag(parsed, 'rate');
  const timeout = stringFlag(parsed, 'fetch-timeout');
  const dryRun = booleanFlag(parsed, 'dry-run');
  const json = booleanFlag(parsed, 'json');
  const fetch = await loadFetch(fetchPath);
  // The state compared with the API must be the one replay and the workers fold, upcasters
  // included: without them a request they close looks open, and its repair applies as a no-op.
  const upcasters = await upcastersFlag(parsed, 'reconcile');
  const opened = await openLog(source);
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
      ...(age === undefined ? {} : { openLongerThanMs: durationFlag('--open-longer-than', age) }),
      ...(rate === undefined ? {} : { ratePerSecond: positiveNumber('--rate', rate) }),
      ...(timeout === undefined
        ? {}
        : { fetchTimeoutMs: positiveNumber('--fetch-timeout', timeout) * 1000 }),
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
