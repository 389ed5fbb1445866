/** `signfold reconcile`, declared once: its flags, its help. */

import { usageError } from '../cli-error.js';
import { DATABASE_FLAGS } from '../database-flags.js';
import { defineCommand } from '../define-command.js';
import { durationOption } from '../duration-flag.js';
import { booleanOption, describedAs, valueOption, withDefault } from '../flags.js';
import { HELP_ROW, helpRows } from '../help-rows.js';
import { idsOption } from '../id-option.js';
import { DEFAULT_WAIT_SECONDS, waitOption } from '../wait-option.js';

/** A number above 0, decimals allowed (`2.5` fetches a second). */
const positiveNumber = (value: string, flag: string): number => {
  const parsed = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed > 0) || !Number.isFinite(parsed)) {
    throw usageError(`${flag} must be a positive number (got '${value}')`);
  }
  return parsed;
};

const FLAGS = {
  fetch: valueOption({ value: 'MODULE', help: 'the fetch function (default export)' }),
  'open-longer-than': durationOption({
    value: 'DURATION',
    help: `ask about the open requests (draft or sent)
sent longer ago than this (default 24h)`,
  }),
  'sign-request': idsOption({
    value: 'ID',
    help: 'ask about this request (repeatable), open or not',
  }),
  rate: valueOption(
    { value: 'N', help: 'start at most N fetches a second (default 5)' },
    positiveNumber,
  ),
  'fetch-timeout': valueOption(
    { value: 'SECONDS', help: 'give up on one fetch after this (default 10)' },
    positiveNumber,
  ),
  'dry-run': booleanOption({ help: 'list the differences, append nothing' }),
  json: booleanOption({ help: 'one JSON document: counts and each result' }),
  upcasters: valueOption({
    value: 'MODULE',
    help: `rewrite records before decoding them, as replay
and pg work do (see signfold replay --help), so
the requests compared are those they fold`,
  }),
  wait: withDefault(
    waitOption({
      value: 'SECONDS',
      help: `with LOG held by serve: how long serve may take
to take a request, or be seen working on it,
before reconcile gives up (default 10)`,
    }),
    DEFAULT_WAIT_SECONDS,
  ),
  database: describedAs(DATABASE_FLAGS.database, 'the PostgreSQL event store instead of LOG'),
  schema: describedAs(DATABASE_FLAGS.schema, 'the schema of --database (default signfold)'),
  'connect-timeout': describedAs(
    DATABASE_FLAGS['connect-timeout'],
    `give up on a server that does not answer within
this time (default 10)`,
  ),
};

/** `signfold reconcile`. */
export const RECONCILE_COMMAND = defineCommand({
  overview: [
    'reconcile LOG',
    "ask the service's API about open requests and repair what deliveries lost (--fetch MODULE)",
  ],
  flags: FLAGS,
  help: () =>
    [
      `Usage: signfold reconcile (LOG | --database URL) --fetch MODULE
                          [--open-longer-than DURATION | --sign-request ID...]
                          [--rate N] [--fetch-timeout SECONDS] [--dry-run] [--json]
                          [--upcasters MODULE] [--wait SECONDS]

Ask the service's API about sign requests and repair what lost deliveries left
behind: for each request the API shows further along than the log (completed,
signed...), append one observation record, which replay, pg work and the
reactors apply like the events it stands for. MODULE is an ES module whose
default export is async (signRequestId, { signal }) => the API's JSON for that
request (your team writes it; signfold has no client for the service's API).
A request whose fetch fails, times out or answers what does not decode is
reported and stored nowhere; the others go on. Running it again appends nothing.
On a file log it holds the writer lock; while 'signfold serve --log LOG' holds
it, reconcile reads LOG beside it and hands serve the observations to append
with its deliveries (one more line on stderr says so).

Options:`,
      helpRows(
        FLAGS,
        [
          'fetch',
          'open-longer-than',
          'sign-request',
          'rate',
          'fetch-timeout',
          'dry-run',
          'json',
          'upcasters',
          'wait',
          'database',
          'schema',
          'connect-timeout',
          HELP_ROW,
        ],
        { width: 30 },
      ),
      `
Exit codes: 0 every request agrees or was repaired, 1 a fetch failed or a
difference cannot be repaired, 2 usage or input error.`,
    ].join('\n'),
});
