/** `signfold forget`, declared once: its flags, its help. */

import { usageError } from '../cli-error.js';
import { DATABASE_FLAGS } from '../database-flags.js';
import { defineCommand } from '../define-command.js';
import { booleanOption, describedAs, repeatedOption, withDefault } from '../flags.js';
import { HELP_ROW, helpRows } from '../help-rows.js';
import { idOption, idsOption } from '../id-option.js';
import { DEFAULT_WAIT_SECONDS, waitOption } from '../wait-option.js';

/** A name as the events hold it, after Unicode NFC; an empty one names no one. */
const personName = (name: string, flag: string): string => {
  if (name.length === 0) throw usageError(`${flag} must not be empty`);
  return name.normalize('NFC');
};

const FLAGS = {
  participant: idsOption({ value: 'ID' }),
  user: idsOption({ value: 'ID' }),
  name: repeatedOption({ value: 'TEXT' }, personName),
  schema: DATABASE_FLAGS.schema,
  'connect-timeout': DATABASE_FLAGS['connect-timeout'],
  company: idOption({ value: 'ID', help: 'only records of company ID' }),
  'dry-run': booleanOption({ help: 'count what would change; change nothing (no lock is taken)' }),
  json: booleanOption({
    help: `print the report as JSON: {"erasure","pseudonym","reused",
"dryRun","participantIds","userIds","typedNames","foundNames",
"counts":{PLACE:N},"remaining":[FILE],"notes":[TEXT]}`,
  }),
  wait: withDefault(
    waitOption({
      value: 'SECONDS',
      help: `with LOG held by serve: how long serve may take to take the
request, or be seen working on it, before forget gives up
(default 10)`,
    }),
    DEFAULT_WAIT_SECONDS,
  ),
  vacuum: booleanOption({ help: 'with --database: VACUUM the rewritten tables afterwards' }),
  database: describedAs(
    DATABASE_FLAGS.database,
    `a PostgreSQL schema instead of LOG (as for signfold pg);
safe while serve and pg work run`,
  ),
};

/** `signfold forget`. */
export const FORGET_COMMAND = defineCommand({
  overview: [
    'forget LOG',
    "erase one person's names from LOG and what is kept beside it (or --database URL)",
  ],
  flags: FLAGS,
  help: () =>
    [
      `Usage: signfold forget (LOG | --database URL) (--participant ID | --user ID | --name TEXT)...
                       [--company ID] [--dry-run] [--json] [--wait SECONDS]
With --database, it also takes [--schema NAME] [--connect-timeout SECONDS] [--vacuum].

Erase one person's names (GDPR article 17) from everything signfold stores,
replacing each by one pseudonym (forgotten- and 16 random hex digits, reused
for a person forgotten before), and record the erasure in a ledger that holds
ids and counts, never a name (LOG.erasures, or the erasures table). Every id
and name given is the same person:
  --participant ID  the participant name of every event and document of ID
  --user ID         the owner and sender names of every event of user ID
  --name TEXT       every person-name member equal to TEXT (after Unicode
                    NFC), and every occurrence of TEXT in stored text that is
                    no valid event (bad lines, invalid events, effects)
Names found for the ids are also erased from sign-request and template names,
bad lines, reactor effects and the quarantine. A file log is rewritten in place
(positions, delivery ids and every other byte kept; a kill leaves the old file
or the new, and running forget again finishes), with its reactor journal, torn
tails and the snapshots of it in its directory; it needs react stopped, and the
log's writer: while 'signfold serve --log LOG' holds it, serve runs the same
forget, its appends held back meanwhile. Later deliveries for a forgotten id are stored with the
pseudonym already. What forget cannot reach (backups, copies, dead rows until
VACUUM) is in docs/privacy.md.

Options:`,
      helpRows(FLAGS, ['company', 'dry-run', 'json', 'wait', 'vacuum', 'database', HELP_ROW], {
        width: 14,
      }),
      `
Exit codes: 0 forgotten, 1 other files beside LOG still hold a name (listed:
a report, an export, a snapshot forget cannot fold again), 2 usage, I/O or
database error, or the log is in use.`,
    ].join('\n'),
});
