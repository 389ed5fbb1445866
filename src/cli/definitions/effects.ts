/** `signfold effects`, declared once: its flags, its help. */

import { DATABASE_FLAGS } from '../database-flags.js';
import { defineCommand } from '../define-command.js';
import { booleanOption, describedAs, valueOption } from '../flags.js';
import { HELP_ROW, helpRows } from '../help-rows.js';
import { waitOption } from '../wait-option.js';

const FLAGS = {
  reactor: valueOption({ value: 'NAME' }),
  error: valueOption({ value: 'TEXT' }),
  parked: booleanOption(),
  all: booleanOption(),
  'dry-run': booleanOption(),
  wait: waitOption({ value: 'SECONDS' }),
  schema: DATABASE_FLAGS.schema,
  'connect-timeout': DATABASE_FLAGS['connect-timeout'],
  json: booleanOption({
    help: `print JSON: {"reactors":[{"name","pending","parked","done"}],
"parked":[{"id","reactor","idempotencyKey","attempts",
"lastError","effect"}],"timers":[{"id","reactor","key",
"dueAt","idempotencyKey"}]}; for retry and skip
{"changed":[ID...],"refused":[{"id","reason"}]}, with
"dryRun":true for a dry run`,
  }),
  database: describedAs(
    DATABASE_FLAGS.database,
    'a PostgreSQL schema instead of LOG (as for signfold pg)',
  ),
};

/** `signfold effects`. */
export const EFFECTS_COMMAND = defineCommand({
  overview: [
    'effects LOG',
    'list reactor effects; effects retry|skip LOG (ID...|FILTER) for parked ones',
  ],
  flags: FLAGS,
  help: () =>
    [
      `Usage: signfold effects (LOG | --database URL) [--json]
       signfold effects retry (LOG | --database URL) (ID... | FILTER...) [--dry-run] [--wait SECONDS] [--json]
       signfold effects skip (LOG | --database URL) (ID... | FILTER...) [--dry-run] [--wait SECONDS] [--json]
With --database, every form also takes [--schema NAME] [--connect-timeout SECONDS].

List the reactor effects of a file log (counts per reactor, the parked
effects with their last error, and the timers with when they are due and
their key), or act on parked effects: retry runs them again with a fresh
round of attempts, skip drops them. Name them by id, or by a filter over the
parked effects (every filter given must hold):
  --reactor NAME   the parked effects of reactor NAME
  --error TEXT     the parked effects whose last error contains TEXT
  --parked, --all  every parked effect (say one when no other filter narrows)
--dry-run says what would change and changes nothing. While signfold react
runs on LOG, retry and skip go through it: it applies the change, journals
it and answers; one that does not take the request within --wait SECONDS
(default 10, and as long again for its answer; a stopped react) gets it
withdrawn, and nothing changes. With --database URL, the effects of a
PostgreSQL schema (signfold pg work --reactors); there retry and skip work
while workers run.

Options:`,
      helpRows(FLAGS, ['json', 'database', HELP_ROW], { width: 13 }),
      `
Exit codes: 0 ok, 1 some ids refused (unknown, not parked, or an invalid
effect that can only be skipped), 2 usage or I/O error, or a running react
that did not answer in time.`,
    ].join('\n'),
});
