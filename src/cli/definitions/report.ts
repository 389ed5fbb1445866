/** `signfold report`, declared once: its flags, its help. */

import { visibleText } from '../../core/visible-text.js';
import { usageError } from '../cli-error.js';
import { DATABASE_FLAGS } from '../database-flags.js';
import { defineCommand } from '../define-command.js';
import { durationMs, durationOption } from '../duration-flag.js';
import { describedAs, type Flag, type FlagMeta, valueOption, withDefault } from '../flags.js';
import { HELP_ROW, helpRows } from '../help-rows.js';

/** The default `--stuck-after`: a week. */
export const DEFAULT_STUCK_AFTER = '7d';

/** The default `--stale-after`: an hour without a delivery earns the page a banner. */
export const DEFAULT_STALE_AFTER = '1h';

/** An ISO 8601 time with a date, a time and a zone (`Z` or `±HH:MM`); a date alone is midnight UTC. */
const ISO_TIME =
  /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** Whether the `YYYY-MM-DD` at the start of `value` is a day of the calendar (not 2025-02-30). */
const realDate = (value: string): boolean => {
  const [y, m, d] = value.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(y ?? 0, (m ?? 0) - 1, d ?? 0));
  return date.getUTCFullYear() === y && date.getUTCMonth() + 1 === m && date.getUTCDate() === d;
};

/** `--from` / `--to` / `--now`: an ISO 8601 time, in epoch ms; `undefined` when not given. */
const timeOption = (meta: FlagMeta): Flag<number | undefined> =>
  valueOption(meta, (value, flag) => {
    // Date.parse alone would roll 2025-02-30 over to March 2.
    const ms = ISO_TIME.test(value) && realDate(value) ? Date.parse(value) : Number.NaN;
    if (!Number.isFinite(ms)) {
      throw usageError(
        `${flag} must be an ISO 8601 time such as 2025-10-01 or 2025-10-01T08:00:00Z (got '${visibleText(value)}')`,
      );
    }
    return ms;
  });

/** A duration flag with a default written as on the command line. */
const durationWithDefault = (meta: FlagMeta, fallback: string): Flag<number> =>
  withDefault(durationOption(meta), durationMs(fallback, 'default'));

const FLAGS = {
  out: valueOption({
    short: 'o',
    value: 'FILE',
    help: `where to write the page (required; replaced atomically,
never the log itself)`,
  }),
  'stuck-after': durationWithDefault(
    {
      value: 'DURATION',
      help: `a request sent longer ago than this (before "now")
without a final event is stuck; e.g. 7d (default),
36h, 90m, 45s, 2w`,
    },
    DEFAULT_STUCK_AFTER,
  ),
  from: timeOption({
    label: '--from TIME, --to TIME',
    help: `report on the requests sent in [from, to) by receivedAt
(ISO 8601: 2025-10-01 or 2025-10-01T08:00:00Z); events
before --from are folded, events from --to on are not read`,
  }),
  to: timeOption({ value: 'TIME' }),
  now: timeOption({
    value: 'TIME',
    help: `"now", which ages and stuck requests are measured
against (ISO 8601 as --from; default: the clock when the
report is made; --to instead when that is earlier);
may not be before the latest receivedAt read`,
  }),
  'stale-after': durationWithDefault(
    {
      value: 'DURATION',
      help: `warn at the top of the page when the last delivery
arrived longer than this before "now" (default 1h)`,
    },
    DEFAULT_STALE_AFTER,
  ),
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
