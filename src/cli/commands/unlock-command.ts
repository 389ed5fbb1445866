/**
 * `signfold unlock LOG [--force]`: removes the writer lock `LOG.lock` of a
 * log whose writer is gone where signfold cannot see it (another host, or
 * another container's pid namespace), which no opener breaks by itself.
 * Removing the lock of a writer that still runs lets a second writer in, and
 * both would then write over each other: the help and `docs/cli.md` say so.
 */

import { visibleText } from '../../core/visible-text.js';
import type { LockVerdict } from '../../store/lock-verdict.js';
import { seconds } from '../../store/locked-error.js';
import { unlockWriterLock } from '../../store/writer-unlock.js';
import { CliError, EXIT, type ExitCode } from '../cli-error.js';
import type { CliIO } from '../cli-io.js';
import { parseCommand } from '../define-command.js';
import { UNLOCK_COMMAND } from '../definitions/unlock.js';

/** What was known of the holder of a removed lock, for the summary line. */
const knownOf = (verdict: LockVerdict): string => {
  switch (verdict.kind) {
    case 'gone':
      return verdict.reason;
    case 'elsewhere':
      return 'its holder was on another host or in another pid namespace';
    case 'unreadable':
      return 'it was not written by signfold';
    case 'running':
    case 'held-here':
      return 'its holder still runs on this host: removed by --force';
  }
};

const holderText = (holder: { pid: number; host: string; since: string } | undefined): string =>
  holder === undefined
    ? 'of an unknown holder'
    : `of pid ${holder.pid} on ${visibleText(holder.host)} since ${visibleText(holder.since)}`;

/**
 * Runs `unlock` with `args` (the words after `unlock`): exit 0 when the lock
 * was removed or there was none, 1 when its holder still runs on this host
 * (kept, unless `--force`), 2 on usage or I/O errors (thrown as CliError).
 */
export const unlockCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const { values, positionals } = parseCommand(UNLOCK_COMMAND, args);
  const [log = ''] = positionals;
  const result = await unlockWriterLock(log, { force: values.force });
  if (result.isErr()) throw new CliError(result.error.message);
  const outcome = result.value;
  switch (outcome.kind) {
    case 'not-locked':
      io.stdout.write(`${log}: not locked (no ${outcome.lockPath})\n`);
      return EXIT.ok;
    case 'removed':
      io.stdout.write(
        `${log}: removed ${outcome.lockPath} ${holderText(outcome.holder)}, heartbeat ` +
          `${seconds(outcome.heartbeatAgeMs)} ago (${knownOf(outcome.verdict)})\n`,
      );
      return EXIT.ok;
    case 'running': {
      const pid = outcome.holder?.pid;
      throw new CliError(
        `${outcome.lockPath} is held by pid ${pid}, which still runs on this host (heartbeat ` +
          `${seconds(outcome.heartbeatAgeMs)} ago): kept; stop that writer instead, or if pid ${pid} ` +
          `is not a signfold writer, run 'signfold unlock --force ${log}'`,
        { exitCode: EXIT.findings },
      );
    }
    case 'busy':
      throw new CliError(
        `${outcome.lockPath}: another process took the lock or was taking it at the same time; nothing removed`,
      );
  }
};
