/** `signfold report`, declared once: its flags, its help. */

import { DATABASE_FLAGS } from '../database-flags.js';
import { defineCommand } from '../define-command.js';
import { describedAs, valueOption } from '../flags.js';
import { HELP_ROW, helpRows } from '../help-rows.js';

const FLAGS = {
  out: valueOption({
    short: 'o',
    value: 'FILE',
    help: `where to write the page (required; replaced atomically,
never the log itself)`,
  }),
  'stuck-after': valueOption({
    value: 'DURATION',
    help: `a request sent longer ago than this (before "now")
without a final event is stuck; e.g. 7d (default),
36h, 90m, 45s, 2w`,
  }),
  from: valueOption({
    label: '--from TIME, --to TIME',
    help: `report on the requests sent in [from, to) by receivedAt
(ISO 8601: 2025-10-01 or 2025-10-01T08:00:00Z); events
before --from are folded, events from --to on are not read`,
  }),
  to: valueOption({ value: 'TIME' }),
  now: valueOption({
    value: 'TIME',
    help: `"now", which ages and stuck requests are measured
against (ISO 8601 as --from; default: the clock when the
report is made; --to instead when that is earlier);
may not be before the latest receivedAt read`,
  }),
  'stale-after': valueOption({
    value: 'DURATION',
    help: `warn at the top of the page when the last delivery
arrived longer than this before "now" (default 1h)`,
  }),
  upcasters: valueOption({
    value: 'MODULE',
    help: `rewrite records before decoding them (see signfold
replay --help)`,
  }),
  database: describedAs(
    DATABASE_FLAGS.database,
    `read the events from PostgreSQL (signfold/postgres,
needs the package pg) instead of LOG`,
  ),
  schema: describedAs(DATABASE_FLAGS.schema, 'the schema of --database (default signfold)'),
  'connect-timeout': describedAs(
    DATABASE_FLAGS['connect-timeout'],
    `give up on a server that does not answer within
this time (1 to 86400, default 10)`,
  ),
};

/** `signfold report`. */
export const REPORT_COMMAND = defineCommand({
  overview: ['report LOG', 'write a self-contained HTML report of a log (--out FILE)'],
  flags: FLAGS,
  help: () =>
    [
      `Usage: signfold report LOG --out FILE [--stuck-after DURATION] [--from TIME] [--to TIME]
                       [--now TIME] [--stale-after DURATION] [--upcasters MODULE]
       signfold report --database URL [--schema NAME] [--connect-timeout SECONDS]
                       --out FILE [--stuck-after DURATION] [--from TIME] [--to TIME]
                       [--now TIME] [--stale-after DURATION] [--upcasters MODULE]

Write a self-contained HTML page about LOG (read-only): overview, per-template
funnel and rates, timings and activity from receivedAt, stuck requests,
quarantine, companies. The page works offline and is the same for the same log
and the same --now.

Options:`,
      helpRows(
        FLAGS,
        [
          'out',
          'stuck-after',
          'from',
          'now',
          'stale-after',
          'upcasters',
          'database',
          'schema',
          'connect-timeout',
          HELP_ROW,
        ],
        { width: 26 },
      ),
      `
Exit codes: 0 written, 2 usage or input error.`,
    ].join('\n'),
});
