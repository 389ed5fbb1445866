/**
 * `signfold replay LOG`: folds a log into projections and prints a summary or
 * (`--json`) the projections themselves; can resume from and save snapshots.
 *
 * Replay runs with `audit: false`: the summary does not use audit trails and
 * keeping them costs memory and time per event. Snapshots written here
 * therefore carry no audit trail (`inspect` always replays the log itself).
 */

import type { Upcaster } from '../../core/upcasters/upcaster-types.js';
import { createProjector, type Projector } from '../../engine/projector.js';
import type { BadInputPolicy } from '../../engine/projector-types.js';
import { restoreProjector, takeSnapshot } from '../../engine/snapshot.js';
import { readSnapshotFile, writeSnapshotFile } from '../../store/snapshot-file.js';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.js';
import { type CliIO, writeJson, writeLines } from '../cli-io.js';
import { parseCommand } from '../define-command.js';
import { REPLAY_COMMAND } from '../definitions/replay.js';
import type { FlagValues } from '../flags.js';
import { describeEntry } from '../quarantine-format.js';
import { ensureReadableFile, isSameFile } from '../sources/read-only-log.js';
import { replayLogFile } from '../sources/replay-log.js';
import { loadUpcasterModule } from '../upcaster-module.js';
import { formatSummary, type ReplayReport, toJsonReport } from './replay-report.js';

/** The parsed command line of `replay`: its flags' values (`upcasters` not yet loaded) and LOG. */
export type ReplayArgs = FlagValues<typeof REPLAY_COMMAND.flags> & { readonly log: string };

/** Parses the arguments after `replay`; throws a usage error (exit 2) if wrong. */
export const parseReplayArgs = (args: readonly string[]): ReplayArgs => {
  const { values, positionals } = parseCommand(REPLAY_COMMAND, args);
  const [log = ''] = positionals;
  return { ...values, log };
};

/** A projector restored from a snapshot file, or a CliError (exit 2) saying why not. */
const restore = async (
  path: string,
  policy: BadInputPolicy,
  upcasters: readonly Upcaster[],
): Promise<Projector> => {
  await ensureReadableFile(path);
  const value = await readSnapshotFile(path);
  if (value.isErr()) throw new CliError(value.error.message);
  const projector = restoreProjector(value.value, { audit: false, policy, upcasters });
  if (projector.isErr()) throw new CliError(`${path}: ${projector.error.message}`);
  return projector.value;
};

/**
 * Runs `replay` with `args` (the words after `replay`). Exit 0 after a
 * replay (bad records quarantined under `skip` are reported, not failures),
 * 1 if `--policy halt` halted, 2 on usage or I/O errors (thrown as CliError).
 */
export const replayCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const options = parseReplayArgs(args);
  // Check the log before a possibly large snapshot is read: fail fast on a typo.
  await ensureReadableFile(options.log);
  // The snapshot replaces its file: never let it replace the log (the CLI never modifies a log).
  if (options.snapshot !== undefined && (await isSameFile(options.snapshot, options.log))) {
    throw usageError(
      `--snapshot ${options.snapshot} is the same file as the log ${options.log}; refusing to overwrite the log`,
    );
  }
  const upcasters =
    options.upcasters === undefined ? [] : await loadUpcasterModule(options.upcasters, 'replay');
  const projector =
    options.fromSnapshot === undefined
      ? createProjector({ audit: false, policy: options.policy, upcasters })
      : await restore(options.fromSnapshot, options.policy, upcasters);
  const restoredAt = projector.checkpoint;
  if (options.until !== undefined && options.until < restoredAt) {
    // The snapshot already holds later events; state as of --until cannot be had from it.
    throw usageError(
      `--until ${options.until} is before the snapshot's checkpoint ${restoredAt}; replay without --from-snapshot`,
    );
  }
  const run = await replayLogFile(projector, options.log, io, options.until);
  const halted = run.result.isErr() ? run.result.error : undefined;
  // A halted replay stops short of what was asked: do not leave a snapshot that looks complete.
  let written: string | undefined;
  if (options.snapshot !== undefined && halted === undefined) {
    const saved = await writeSnapshotFile(options.snapshot, takeSnapshot(projector));
    if (saved.isErr()) throw new CliError(`cannot write snapshot ${saved.error.message}`);
    written = options.snapshot;
  }
  const report: ReplayReport = {
    log: options.log,
    projector,
    run,
    until: options.until,
    restored:
      options.fromSnapshot === undefined
        ? undefined
        : { path: options.fromSnapshot, checkpoint: restoredAt },
    written,
  };
  if (options.json) writeJson(io.stdout, toJsonReport(report));
  else writeLines(io.stdout, formatSummary(report));
  if (halted !== undefined) {
    writeLines(io.stderr, [`signfold: halted at ${describeEntry(halted)}`]);
    return EXIT.findings;
  }
  return EXIT.ok;
};
