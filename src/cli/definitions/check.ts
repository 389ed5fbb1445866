/** `signfold check`, declared once: its flags, its help. */
import { defineCommand } from '../define-command.js';
import { booleanOption, valueOption } from '../flags.js';
import { HELP_ROW, helpRows } from '../help-rows.js';

const FLAGS = {
  strict: booleanOption({ help: 'also reject events carrying members no event type has' }),
  upcasters: valueOption({
    value: 'MODULE',
    help: `rewrite records before decoding them (an array of
upcasters as default export; see signfold replay --help)`,
  }),
};

/** `signfold check`. */
export const CHECK_COMMAND = defineCommand({
  overview: ['check LOG', 'lint a log: list bad lines and conflicts, exit 1 if any'],
  flags: FLAGS,
  positionals: ['LOG'],
  help: () =>
    [
      `Usage: signfold check LOG [--strict] [--upcasters MODULE]

Lint LOG: print each bad line, invalid event and conflict as
  LOG:LINE: position P: reason
then a count. A torn last line (no newline, not JSON) is a problem too.

Options:`,
      helpRows(FLAGS, ['strict', 'upcasters', HELP_ROW], { width: 21 }),
      `
Exit codes: 0 clean, 1 problems found, 2 usage or input error.`,
    ].join('\n'),
});
