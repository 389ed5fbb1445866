/**
 * `signfold report LOG --out FILE` (or `--database URL` in place of `LOG`):
 * replays the log (with a `ReportRecorder` gathering `receivedAt`, types and
 * outcomes) and writes the HTML page that `src/report/` builds and renders. This command only reads the log and
 * writes the file; everything on the page comes from the pure model and
 * renderer.
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import { createProjector } from '../engine/projector.js';
import { counted } from '../plural.js';
import { initialState } from '../projections/projection-state.js';
import { buildReportModel } from '../report/build-report-model.js';
import { renderReport } from '../report/render-report.js';
import { ReportRecorder } from '../report/report-recorder.js';
import { type OptionTable, parseCommandArgs, stringFlag } from './args.js';
import { CliError, EXIT, type ExitCode, usageError } from './cli-error.js';
import { type CliIO, writeLines } from './cli-io.js';
import { durationFlag } from './duration-flag.js';
import { type EventSource, eventSourceOf, sourceArgs, sourceLabel } from './event-source.js';
import { ensureReadableFile, isSameFile } from './log-source.js';
import { DATABASE_OPTIONS } from './pg-pool.js';
import { replaySource } from './replay-source.js';

/** The flags of `report`. */
export const REPORT_OPTIONS: OptionTable = {
  out: { type: 'string', short: 'o' },
  'stuck-after': { type: 'string' },
  ...DATABASE_OPTIONS,
};

/** The default `--stuck-after`: a week. */
export const DEFAULT_STUCK_AFTER = '7d';

/** The parsed command line of `report`. */
export interface ReportArgs {
  readonly source: EventSource;
  readonly out: string;
  readonly stuckAfterMs: number;
}

/** Parses the arguments after `report`; throws a usage error (exit 2) if wrong. */
export const parseReportArgs = (args: readonly string[]): ReportArgs => {
  const parsed = parseCommandArgs(args, REPORT_OPTIONS);
  const source = eventSourceOf(parsed);
  const out = stringFlag(parsed, 'out');
  if (out === undefined || out === '')
    throw usageError('missing --out FILE (where to write the report)');
  return {
    source,
    out,
    stuckAfterMs: durationFlag(
      '--stuck-after',
      stringFlag(parsed, 'stuck-after') ?? DEFAULT_STUCK_AFTER,
    ),
  };
};

/** Writes `text` to `path` through a temporary file, so a reader never sees half a page. */
const writeAtomically = async (path: string, text: string): Promise<void> => {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, text);
    await rename(temporary, path);
  } catch (cause) {
    await rm(temporary, { force: true }).catch(() => undefined);
    const reason = (cause as NodeJS.ErrnoException | undefined)?.code ?? String(cause);
    throw new CliError(`cannot write report ${path}: ${reason}`);
  }
};

/**
 * Runs `report` with `args` (the words after `report`): exit 0 once the page
 * is written (quarantined records are shown on it, not failures), 2 on usage
 * or I/O errors (thrown as CliError).
 */
export const reportCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const options = parseReportArgs(args);
  const { source } = options;
  if (source.kind === 'file') {
    await ensureReadableFile(source.path);
    if (await isSameFile(options.out, source.path)) {
      throw usageError(
        `--out ${options.out} is the same file as the log ${source.path}; refusing to overwrite the log`,
      );
    }
  }
  const label = sourceLabel(source);
  // The recorder stands in for the audit trail: it aggregates instead of keeping every event.
  const recorder = new ReportRecorder();
  const projector = createProjector(
    { audit: true, policy: 'skip' },
    { state: initialState(), checkpoint: 0, audit: recorder },
  );
  const run = await replaySource(projector, source, io, 'report');
  const model = buildReportModel({
    log: label,
    inspectSource: sourceArgs(source),
    state: projector.state(),
    stats: projector.stats(),
    processed: run.processed,
    quarantine: projector.quarantine(),
    observations: recorder.observations(),
    incompleteTail: projector.incompleteTail(),
    stuckAfterMs: options.stuckAfterMs,
  });
  const html = renderReport(model);
  await writeAtomically(options.out, html);
  const kib = Math.round(Buffer.byteLength(html) / 1024);
  writeLines(io.stdout, [
    `${label}: report written to ${options.out} (${counted(run.processed, 'record')}, ${kib} KiB)`,
  ]);
  return EXIT.ok;
};
