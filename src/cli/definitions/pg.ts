/**
 * `signfold pg SUBCOMMAND`, declared once: each subcommand's flags (those
 * every one takes, and those `work` and `rebuild` share, written once) and
 * the help page of them all.
 */
import { choiceOption } from '../choice-option.js';
import { DATABASE_FLAGS } from '../database-flags.js';
import { defineCommand } from '../define-command.js';
import { booleanOption, describedAs, type FlagMeta, valueOption } from '../flags.js';
import { helpRows } from '../help-rows.js';
import { integerOption } from '../integer-option.js';
import { metricsPort } from '../metrics/metrics-port.js';

/** A whole number of at least `least`: a usage error names the flag, and `unit` after the bound. */
const integerFrom = (meta: FlagMeta, least: number, unit = '') =>
  integerOption(meta, { min: least, refuse: (flag) => `${flag} must be at least ${least}${unit}` });

/** What every subcommand takes. */
const DATABASE = {
  ...DATABASE_FLAGS,
  'connect-timeout': describedAs(
    DATABASE_FLAGS['connect-timeout'],
    `give up on a server that does not answer
within this time (1 to 86400, default 10)`,
  ),
};

/** What `work` and `rebuild` share: how their workers take partitions and batches. */
const WORKER = {
  'batch-size': integerFrom({ value: 'N', help: 'events per transaction (default 5000)' }, 1),
  'poll-interval': integerFrom(
    { value: 'MS', help: 'longest wait without a notification (default 5000)' },
    10,
    ' (ms)',
  ),
  lease: integerFrom(
    { value: 'MS', help: 'claim on a partition without renewal (default 10000)' },
    100,
    ' (ms)',
  ),
  'worker-id': valueOption({
    value: 'ID',
    help: 'name in the lease rows (default host:pid:random)',
  }),
  upcasters: valueOption({
    value: 'MODULE',
    help: `rewrite records before decoding them (see
signfold replay --help); each must keep the
sign request a stored record names`,
  }),
};

/** The subcommands, by name: their flags and positionals. */
export const PG_SUBCOMMANDS = {
  migrate: {
    positionals: [],
    flags: {
      ...DATABASE,
      partitions: integerOption(
        {
          value: 'N',
          help: `partitions of the projection, fixed at creation
(1 to 1024, default 16)`,
        },
        {
          min: 1,
          max: 1024,
          refuse: (flag, _, parsed) =>
            parsed < 1 ? `${flag} must be at least 1` : `${flag} must be at most 1024`,
        },
      ),
    },
  },
  import: { positionals: ['LOG'], flags: DATABASE },
  work: {
    positionals: [],
    flags: {
      ...DATABASE,
      drain: booleanOption(),
      ...WORKER,
      reactors: valueOption({
        value: 'MODULE',
        help: `also run these reactors: each batch enqueues
their effects (and runs their SQL effects) in
its transaction; effects are claimed and
executed here; with --drain exit once none is
ready or retrying`,
      }),
      from: choiceOption(
        {
          value: 'end',
          help: `reactors without a checkpoint start at the
end of the log (default: at its start)`,
        },
        ['start', 'end'],
      ),
      tracing: valueOption({
        value: 'MODULE',
        help: `OpenTelemetry spans of each batch, each record
it folds and each effect attempt (see
signfold serve --help)`,
      }),
      'metrics-port': valueOption(
        {
          value: 'P',
          help: `serve Prometheus /metrics on 127.0.0.1:P (0: any
free port; prints "metrics listening on URL"):
lag per partition, events, effects, attempts
(see docs/cli.md#metrics)`,
        },
        metricsPort,
      ),
    },
  },
  rebuild: {
    positionals: [],
    flags: {
      ...DATABASE,
      switch: booleanOption({
        help: `once caught up, move the rebuilt tables in
under NAME's names in one transaction (appends
wait, each wait bounded; postponed and tried
again when a bound runs out); the old tables
go to NAME_retired, old workers stop, and
reactors react once to each event applied
only now`,
      }),
      ...WORKER,
    },
  },
  status: { positionals: [], flags: { ...DATABASE, json: booleanOption() } },
  export: { positionals: [], flags: DATABASE },
  events: { positionals: [], flags: DATABASE },
  skip: {
    positionals: [],
    flags: {
      ...DATABASE,
      position: integerFrom({ value: 'N' }, 1),
      reason: valueOption({ value: 'TEXT', help: 'shown in its quarantine message' }),
    },
  },
} as const;

/** The name of a subcommand. */
export type PgSubcommand = keyof typeof PG_SUBCOMMANDS;

const { migrate, work, rebuild, skip } = PG_SUBCOMMANDS;

/** Where a subcommand's flags are listed: under it. */
const UNDER = { indent: 12, width: 21 };

/** `signfold pg`. */
export const PG_COMMAND = defineCommand({
  overview: [
    'pg SUBCOMMAND',
    'PostgreSQL: migrate, import LOG, work, rebuild, status, export, events, skip (see signfold pg --help)',
  ],
  flags: {},
  help: () =>
    [
      `Usage: signfold pg migrate --database URL [--schema NAME] [--partitions N]
       signfold pg import LOG --database URL [--schema NAME]
       signfold pg work --database URL [--schema NAME] [--drain] [--batch-size N] [--poll-interval MS]
                        [--lease MS] [--worker-id ID] [--reactors MODULE] [--from end]
                        [--upcasters MODULE] [--metrics-port P] [--tracing MODULE]
       signfold pg rebuild --database URL [--schema NAME] [--upcasters MODULE] [--switch]
                           [--batch-size N] [--poll-interval MS] [--lease MS] [--worker-id ID]
       signfold pg status --database URL [--schema NAME] [--json]
       signfold pg export --database URL [--schema NAME]
       signfold pg events --database URL [--schema NAME]
       signfold pg skip --position N --database URL [--schema NAME] [--reason TEXT]
Every subcommand also takes [--connect-timeout SECONDS].

The PostgreSQL store and projection tables (needs the package pg; import also
needs pg-copy-streams). URL is a postgres:// connection URL (DATABASE_URL
stands in for a missing --database; its password is never printed); NAME the
schema (default signfold).
`,
      helpRows(DATABASE, ['connect-timeout'], { width: 28 }),
      '',
      `  migrate   create or upgrade the schema (idempotent; refuses a newer schema)`,
      helpRows(migrate.flags, ['partitions'], UNDER),
      `  import    append a file log's records with COPY, in one transaction; lines
            whose delivery id is already stored are skipped
  work      project the stored events into the tables, batch by batch; with
            --drain exit once everything stored is projected, else follow new
            appends until SIGINT or SIGTERM`,
      helpRows(
        work.flags,
        [
          'batch-size',
          'poll-interval',
          'lease',
          'worker-id',
          'reactors',
          'from',
          'upcasters',
          'metrics-port',
          'tracing',
        ],
        UNDER,
      ),
      `            several workers share the partitions; one that stops loses them
            to the others within a lease and a quarter; one whose tables pg
            rebuild --switch replaced stops (exit 0, one line)
  rebuild   project the stored events again, with these upcasters, into
            NAME_rebuild beside the live tables (serve and readers go on);
            several share its partitions (--batch-size, --poll-interval,
            --lease, --worker-id as for work); without --switch exit once it
            has every event stored; a stopped rebuild is resumed by the next
            (one made with other upcasters is dropped and started over)`,
      helpRows(rebuild.flags, ['switch'], UNDER),
      `  status    each partition's owner, lease (or how long ago it expired),
            checkpoint, lag and last error (--json)
  export    print the tables as JSON: the templates, signRequests,
            participants and quarantine arrays of replay --json (same order,
            same shape), the checkpoint
  events    print the stored records (events, observations, bad lines) as a
            log file that replay reads, line N holding position N
  skip      quarantine the stored event at position N instead of projecting
            it: the way past an event a worker names when the database keeps
            refusing it (safe while workers run; see docs/postgres.md)`,
      helpRows(skip.flags, ['reason'], UNDER),
      `
Exit codes: 0 done, 2 usage, input or database error.`,
    ].join('\n'),
});
