/** `signfold unlock`, declared once: its flags, its help. */
import { defineCommand } from '../define-command.js';
import { booleanOption } from '../flags.js';
import { HELP_ROW, helpRows } from '../help-rows.js';

const FLAGS = {
  force: booleanOption({
    help: `also remove the lock of a process that runs on this host (when
that pid is not a signfold writer)`,
  }),
};

/** `signfold unlock`. */
export const UNLOCK_COMMAND = defineCommand({
  overview: [
    'unlock LOG',
    'remove the writer lock LOG.lock of a writer that is gone (see its --help)',
  ],
  flags: FLAGS,
  positionals: ['LOG'],
  help: () =>
    [
      `Usage: signfold unlock LOG [--force]

Remove LOG.lock, the writer lock of a file log, when its writer is gone but
signfold cannot tell: a writer on another host or in another container (pid
namespace) is never presumed dead, so its lock stays until removed here. Also
removes a LOG.lock.break and scratch files left by crashed openers.

RISK: if that writer still runs, removing its lock lets a second writer in,
and writes still pending in the first (a stalled disk, a paused container)
land over the second's: acknowledged events are lost. Make sure it stopped.

A lock whose holder still runs on this host is kept (exit 1) unless --force.

Options:`,
      helpRows(FLAGS, ['force', HELP_ROW], { width: 13 }),
      `
Exit codes: 0 removed (or not locked), 1 the holder runs on this host (kept),
2 usage or I/O error.`,
    ].join('\n'),
});
