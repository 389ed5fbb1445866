/** `signfold inspect`, declared once: its flags, its help. */

import { DATABASE_FLAGS } from '../database-flags.js';
import { defineCommand } from '../define-command.js';
import { describedAs, valueOption } from '../flags.js';
import { HELP_ROW, helpRows } from '../help-rows.js';
import { idOption } from '../id-option.js';
import { integerOption } from '../integer-option.js';

const FLAGS = {
  'sign-request': idOption({
    value: 'ID',
    help: 'the sign request to show (required; any integer, e.g. -5)',
  }),
  until: integerOption({ value: 'N', help: 'as of log position N' }),
  upcasters: valueOption({
    value: 'MODULE',
    help: `rewrite records before decoding them (see signfold
replay --help); the timeline names the upcasters`,
  }),
  database: describedAs(
    DATABASE_FLAGS.database,
    `read the events from PostgreSQL (signfold/postgres, needs
the package pg) instead of LOG`,
  ),
  schema: describedAs(DATABASE_FLAGS.schema, 'the schema of --database (default signfold)'),
  'connect-timeout': describedAs(
    DATABASE_FLAGS['connect-timeout'],
    `give up on a server that does not answer within this
time (1 to 86400, default 10)`,
  ),
};

/** `signfold inspect`. */
export const INSPECT_COMMAND = defineCommand({
  overview: ['inspect LOG', 'show one sign request, its participants and its timeline'],
  flags: FLAGS,
  help: () =>
    [
      `Usage: signfold inspect LOG --sign-request ID [--until N] [--upcasters MODULE]
       signfold inspect --database URL [--schema NAME] [--connect-timeout SECONDS]
                        --sign-request ID [--until N] [--upcasters MODULE]

Show a sign request (status, names, company, template, sender, deleted), its
participants (status, role, views, downloads) and the timeline of every event
that touched it (position, received at, type, participant, outcome).

Options:`,
      helpRows(
        FLAGS,
        ['sign-request', 'until', 'upcasters', 'database', 'schema', 'connect-timeout', HELP_ROW],
        { width: 20 },
      ),
      `
Exit codes: 0 shown, 1 the log never mentions ID, 2 usage or input error.`,
    ].join('\n'),
});
