/** `signfold replay`, declared once: its flags, its help. */
import { choiceOption } from '../choice-option.js';
import { defineCommand } from '../define-command.js';
import { booleanOption, valueOption, withDefault } from '../flags.js';
import { HELP_ROW, helpRows } from '../help-rows.js';
import { integerOption } from '../integer-option.js';

const FLAGS = {
  until: integerOption({ value: 'N', help: 'stop after log position N (state as of N)' }),
  json: booleanOption({ help: 'print the projections, quarantine, stats and checkpoint as JSON' }),
  snapshot: valueOption({
    value: 'FILE',
    help: `write a snapshot of the result to FILE (not after a halt;
never the log itself)`,
  }),
  'from-snapshot': valueOption({
    value: 'FILE',
    help: 'start from a snapshot and replay only the records after it',
  }),
  policy: withDefault(
    choiceOption(
      {
        value: 'skip|halt',
        help: `skip (default): quarantine bad records and go on;
halt: stop at the first one (exit 1)`,
      },
      ['skip', 'halt'],
    ),
    'skip',
  ),
  upcasters: valueOption({
    value: 'MODULE',
    help: `rewrite records before decoding them: MODULE is an ES
module whose default export is an array of upcasters
(defineUpcaster; see docs/engine.md#upcasters)`,
  }),
};

/** `signfold replay`. */
export const REPLAY_COMMAND = defineCommand({
  overview: ['replay LOG', 'replay a log and print a summary (or the projections as JSON)'],
  flags: FLAGS,
  positionals: ['LOG'],
  help: () =>
    [
      `Usage: signfold replay LOG [options]

Replay LOG (read-only) and print what it folds into: events processed, counts
by status of templates, sign requests and participants, quarantined records
(bad lines, invalid events, conflicts), checkpoint, elapsed time.

Options:`,
      helpRows(
        FLAGS,
        ['until', 'json', 'snapshot', 'from-snapshot', 'policy', 'upcasters', HELP_ROW],
        { width: 23 },
      ),
      `
Exit codes: 0 replayed, 1 halted (--policy halt), 2 usage or input error.`,
    ].join('\n'),
});
