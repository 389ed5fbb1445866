/**
 * `signfold report LOG --out FILE` (or `--database URL` in place of `LOG`):
 * replays the log (with a `ReportRecorder` gathering `receivedAt`, types and
 * outcomes) and writes the HTML page that `src/report/` builds and renders. This command only reads the log and
 * writes the file; everything on the page comes from the pure model and
 * renderer.
 */
import { counted } from '../../core/plural.js';
import { initialState } from '../../core/projections/projection-state.js';
import { createProjector } from '../../engine/projector.js';
import { buildReportModel } from '../../report/model/build-report-model.js';
import { PeriodReader } from '../../report/model/period-reader.js';
import type { ReportPeriod } from '../../report/model/report-period.js';
import { ReportRecorder } from '../../report/model/report-recorder.js';
import { renderReport } from '../../report/render-report.js';
import { replaceFile } from '../../store/replace-file.js';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import { parseCommand } from '../define-command.js';
import { REPORT_COMMAND } from '../definitions/report.js';
import {
  type EventSource,
  eventSourceOf,
  sourceArgs,
  sourceLabel,
} from '../sources/event-source.js';
import { ensureReadableFile, isSameFile } from '../sources/read-only-log.js';
import { replaySource } from '../sources/replay-source.js';
import { loadUpcasterModule } from '../upcaster-module.js';

/** The parsed command line of `report`. */
export interface ReportArgs {
  readonly source: EventSource;
  readonly out: string;
  readonly stuckAfterMs: number;
  readonly period: ReportPeriod;
  /** `--now TIME` (epoch ms); `undefined`: the clock when the report is made. */
  readonly nowMs: number | undefined;
  readonly staleAfterMs: number;
  /** `--upcasters MODULE`, not yet loaded. */
  readonly upcasters: string | undefined;
}

/** Parses the arguments after `report`; throws a usage error (exit 2) if wrong. */
export const parseReportArgs = (args: readonly string[]): ReportArgs => {
  const parsed = parseCommand(REPORT_COMMAND, args);
  const source = eventSourceOf(parsed);
  const { out, from: fromMs, to: toMs } = parsed.values;
  if (out === undefined || out === '')
    throw usageError('missing --out FILE (where to write the report)');
  if (fromMs !== undefined && toMs !== undefined && fromMs >= toMs) {
    throw usageError(
      '--from must be before --to (the period is receivedAt from --from up to, not including, --to)',
    );
  }
  return {
    source,
    out,
    period: { fromMs, toMs },
    nowMs: parsed.values.now,
    staleAfterMs: parsed.values.staleAfter,
    upcasters: parsed.values.upcasters,
    stuckAfterMs: parsed.values.stuckAfter,
  };
};

/** Writes `text` to `path` whole (`replaceFile`), so a reader never sees half a page. */
const writeAtomically = async (path: string, text: string): Promise<void> => {
  try {
    await replaceFile(path, text);
  } catch (cause) {
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
  // Read before the replay: "now" is when the report was asked for, whatever the replay takes.
  const nowMs = options.nowMs ?? Date.now();
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
  const recorder = new ReportRecorder(options.period);
  const upcasters =
    options.upcasters === undefined ? [] : await loadUpcasterModule(options.upcasters, 'report');
  const projector = createProjector(
    { audit: true, policy: 'skip', upcasters },
    { state: initialState(), checkpoint: 0, audit: recorder },
  );
  const reader = new PeriodReader(options.period, () => projector.quarantine());
  const run = await replaySource(projector, source, io, 'report', undefined, (log) =>
    reader.view(log),
  );
  const latest = recorder.observations().latest;
  if (options.nowMs !== undefined && latest !== undefined && latest > options.nowMs) {
    // An age measured against a time before a delivery would be negative: a mistaken --now.
    throw usageError(
      `--now ${new Date(options.nowMs).toISOString()} is before the latest receivedAt read, ${new Date(latest).toISOString()} (use --to to leave later events out)`,
    );
  }
  const model = buildReportModel({
    log: label,
    inspectSource: sourceArgs(source),
    state: projector.state(),
    stats: projector.stats(),
    processed: run.processed,
    quarantine: projector.quarantine(),
    quarantineOrigins: reader.origins(),
    period: options.period,
    observations: recorder.observations(),
    incompleteTail: projector.incompleteTail(),
    stuckAfterMs: options.stuckAfterMs,
    nowMs,
    nowGiven: options.nowMs !== undefined,
    staleAfterMs: options.staleAfterMs,
  });
  const html = renderReport(model);
  await writeAtomically(options.out, html);
  const kib = Math.round(Buffer.byteLength(html) / 1024);
  writeLines(io.stdout, [
    `${label}: report written to ${options.out} (${counted(run.processed, 'record')}, ${kib} KiB)`,
  ]);
  return EXIT.ok;
};
