/**
 * `signfold pg migrate|import|work|rebuild|status|export|events|skip`: the PostgreSQL adapter from the command
 * line. Loaded only when a `pg` command runs, so the other commands never
 * load `pg` (an optional peer dependency). What each subcommand takes is
 * declared in definitions/pg.ts; its values come typed from there.
 */
import { migrate } from '../../postgres/index.js';
import { EXIT, type ExitCode, usageError } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import type { DATABASE_FLAGS } from '../database-flags.js';
import { parseCommand } from '../define-command.js';
import { PG_SUBCOMMANDS, type PgSubcommand } from '../definitions/pg.js';
import type { FlagValues } from '../flags.js';
import {
  BULK_QUERY_TIMEOUT_MS,
  type CliPool,
  type PgTarget,
  type PoolOptions,
  withPool,
} from '../postgres-pool.js';
import { loadReactorModule } from '../reactor-module.js';
import { loadTracing } from '../tracing-module.js';
import { loadUpcasterModule } from '../upcaster-module.js';
import { pgEvents } from './events.js';
import { pgExport } from './export.js';
import { postgresFailure } from './failure.js';
import { pgImport } from './import.js';
import { pgRebuild } from './rebuild.js';
import { pgSkip } from './skip.js';
import { pgStatus } from './status.js';
import { pgWork, stopOnSignals, workQueryTimeoutMs } from './work.js';

/** The values of subcommand `S`'s flags. */
type ValuesOf<S extends PgSubcommand> = FlagValues<(typeof PG_SUBCOMMANDS)[S]['flags']>;

/** What every subcommand's flags name: the database. */
type DatabaseValues = FlagValues<typeof DATABASE_FLAGS>;

/** The database a subcommand acts on, as its flags name it. */
interface Database {
  readonly url: string;
  readonly target: PgTarget;
  readonly origin: 'DATABASE_URL' | '--database';
  readonly connectTimeoutMs: number;
}

/**
 * The database of `values`: --database, or DATABASE_URL (the usual
 * variable) in its stead; a usage error without either, before anything
 * is loaded.
 */
const databaseOf = (sub: PgSubcommand, values: DatabaseValues): Database => {
  const fromEnv = process.env.DATABASE_URL;
  const url = values.database ?? (fromEnv === undefined || fromEnv === '' ? undefined : fromEnv);
  if (url === undefined) {
    throw usageError(`pg ${sub}: --database URL (or DATABASE_URL) is required`);
  }
  return {
    url,
    target: {
      database: url,
      schemaOptions: values.schema === undefined ? {} : { schema: values.schema },
    },
    origin: values.database === undefined ? 'DATABASE_URL' : '--database',
    connectTimeoutMs: values.connectTimeout,
  };
};

/** Runs `use` on a pool of `database` and ends the pool. */
const onDatabase = async <T>(
  database: Database,
  options: Omit<PoolOptions, 'connectTimeoutMs' | 'origin'>,
  use: (pool: CliPool, target: PgTarget) => Promise<T>,
): Promise<T> =>
  await withPool(
    database.url,
    { ...options, connectTimeoutMs: database.connectTimeoutMs, origin: database.origin },
    (pool) => use(pool, database.target),
  );

/** The bulk subcommands' statements move whole tables. */
const BULK = { queryTimeoutMs: BULK_QUERY_TIMEOUT_MS };

const pgMigrate = async (values: ValuesOf<'migrate'>, io: CliIO): Promise<ExitCode> =>
  await onDatabase(databaseOf('migrate', values), BULK, async (pool, target) => {
    const migrated = await migrate(pool, {
      ...target.schemaOptions,
      ...(values.partitions === undefined ? {} : { partitions: values.partitions }),
    });
    if (migrated.isErr()) throw postgresFailure(migrated.error);
    const { schema, from, to } = migrated.value;
    writeLines(io.stdout, [
      from === to
        ? `schema ${schema} is at version ${to}: nothing to do`
        : `schema ${schema} migrated from version ${from} to ${to} (${migrated.value.partitions} partitions)`,
    ]);
    return EXIT.ok;
  });

const pgWorkCommand = async (values: ValuesOf<'work'>, io: CliIO): Promise<ExitCode> => {
  const database = databaseOf('work', values);
  if (values.from !== undefined && values.reactors === undefined) {
    throw usageError('--from needs --reactors MODULE');
  }
  const reactors =
    values.reactors === undefined
      ? []
      : await loadReactorModule(values.reactors, 'pg work', 'allow-sql');
  const upcasters =
    values.upcasters === undefined ? [] : await loadUpcasterModule(values.upcasters, 'pg work');
  const traced = await loadTracing(values.tracing, 'pg work');
  // A following worker stops on SIGINT/SIGTERM within its bound, whatever the
  // pool still waits for: the bound spans the pool's end too.
  const stop = values.drain ? undefined : stopOnSignals(io);
  try {
    return await onDatabase(
      database,
      // A worker's statements are bounded by its lease; its connections are named in
      // pg_stat_activity (unless the URL or PGAPPNAME names them).
      { queryTimeoutMs: workQueryTimeoutMs(values.lease), applicationName: 'signfold pg work' },
      (pool, target) =>
        pgWork(
          pool,
          target,
          {
            drain: values.drain,
            batchSize: values.batchSize,
            pollMs: values.pollInterval,
            leaseMs: values.lease,
            workerId: values.workerId,
            reactors,
            upcasters,
            fromEnd: values.from === 'end',
            metrics:
              values.metricsPort === undefined
                ? undefined
                : { port: values.metricsPort, connectTimeoutMs: values.connectTimeout },
            tracing: traced.tracing,
          },
          io,
          stop?.signal,
        ),
    );
  } finally {
    stop?.dispose();
    await traced.close();
  }
};

const pgRebuildCommand = async (values: ValuesOf<'rebuild'>, io: CliIO): Promise<ExitCode> => {
  const database = databaseOf('rebuild', values);
  const upcasters =
    values.upcasters === undefined ? [] : await loadUpcasterModule(values.upcasters, 'pg rebuild');
  const stop = stopOnSignals(io);
  try {
    return await onDatabase(
      database,
      // The switch holds a connection of its own while the rebuild's workers use theirs.
      { queryTimeoutMs: workQueryTimeoutMs(values.lease), max: 6 },
      (pool, target) =>
        pgRebuild(
          pool,
          target,
          {
            switch: values.switch,
            batchSize: values.batchSize,
            pollMs: values.pollInterval,
            leaseMs: values.lease,
            workerId: values.workerId,
            upcasters,
          },
          io,
          stop.signal,
        ),
    );
  } finally {
    stop.dispose();
  }
};

/** Each subcommand: its arguments (after its name) to its exit code. */
const RUN: {
  readonly [S in PgSubcommand]: (args: readonly string[], io: CliIO) => Promise<ExitCode>;
} = {
  migrate: (args, io) => pgMigrate(parseCommand(PG_SUBCOMMANDS.migrate, args).values, io),
  import: (args, io) => {
    const { values, positionals } = parseCommand(PG_SUBCOMMANDS.import, args);
    return onDatabase(databaseOf('import', values), BULK, (pool, target) =>
      pgImport(pool, target, positionals[0] ?? '', io),
    );
  },
  work: (args, io) => pgWorkCommand(parseCommand(PG_SUBCOMMANDS.work, args).values, io),
  rebuild: (args, io) => pgRebuildCommand(parseCommand(PG_SUBCOMMANDS.rebuild, args).values, io),
  status: (args, io) => {
    const { values } = parseCommand(PG_SUBCOMMANDS.status, args);
    return onDatabase(databaseOf('status', values), {}, (pool, target) =>
      pgStatus(pool, target, values.json, io),
    );
  },
  export: (args, io) => {
    const { values } = parseCommand(PG_SUBCOMMANDS.export, args);
    return onDatabase(databaseOf('export', values), BULK, (pool, target) =>
      pgExport(pool, target, io),
    );
  },
  events: (args, io) => {
    const { values } = parseCommand(PG_SUBCOMMANDS.events, args);
    return onDatabase(databaseOf('events', values), BULK, (pool, target) =>
      pgEvents(pool, target, io),
    );
  },
  skip: (args, io) => {
    const { values } = parseCommand(PG_SUBCOMMANDS.skip, args);
    const { position } = values;
    if (position === undefined) throw usageError('pg skip: --position N is required');
    return onDatabase(databaseOf('skip', values), {}, (pool, target) =>
      pgSkip(pool, target, position, values.reason, io),
    );
  },
};

/** `signfold pg SUBCOMMAND …`. */
export const pgCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const [sub, ...rest] = args;
  if (sub === undefined)
    throw usageError(
      'missing subcommand: migrate, import, work, rebuild, status, export, events or skip',
    );
  if (!Object.hasOwn(RUN, sub)) throw usageError(`unknown subcommand 'pg ${sub}'`);
  return await RUN[sub as PgSubcommand](rest, io);
};
