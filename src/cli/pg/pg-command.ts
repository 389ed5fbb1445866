/**
 * `signfold pg migrate|import|work|rebuild|status|export|events|skip`: the PostgreSQL adapter from the command
 * line. Loaded only when a `pg` command runs, so the other commands never
 * load `pg` (an optional peer dependency).
 */
import type { Upcaster } from '../../core/upcasters/upcaster-types.js';
import type { Tracing } from '../../engine/tracing.js';
import { migrate } from '../../postgres/index.js';
import {
  booleanFlag,
  choiceFlag,
  expectPositionals,
  integerFlag,
  type OptionTable,
  parseCommandArgs,
  stringFlag,
} from '../args.js';
import { EXIT, type ExitCode, usageError } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import { METRICS_PORT_OPTION, metricsPortFlag } from '../metrics/metrics-port.js';
import type { CliPool, PgTarget } from '../postgres-pool.js';
import {
  BULK_QUERY_TIMEOUT_MS,
  connectTimeoutOf,
  DATABASE_OPTIONS,
  withPool,
} from '../postgres-pool.js';
import { loadReactorModule } from '../reactor-module.js';
import { TRACING_OPTION, tracingFlag } from '../tracing-module.js';
import { UPCASTERS_OPTION, upcastersFlag } from '../upcaster-module.js';
import { pgEvents } from './events.js';
import { pgExport } from './export.js';
import { postgresFailure } from './failure.js';
import { pgImport } from './import.js';
import { pgRebuild } from './rebuild.js';
import { pgSkip } from './skip.js';
import { pgStatus } from './status.js';
import {
  pgWork,
  stopOnSignals,
  type WorkOptions,
  type WorkStop,
  workQueryTimeoutMs,
} from './work.js';

const SUBCOMMAND_OPTIONS: Readonly<Record<string, OptionTable>> = {
  migrate: { ...DATABASE_OPTIONS, partitions: { type: 'string' } },
  import: DATABASE_OPTIONS,
  work: {
    ...DATABASE_OPTIONS,
    drain: { type: 'boolean' },
    'batch-size': { type: 'string' },
    'poll-interval': { type: 'string' },
    lease: { type: 'string' },
    'worker-id': { type: 'string' },
    reactors: { type: 'string' },
    from: { type: 'string' },
    ...UPCASTERS_OPTION,
    ...TRACING_OPTION,
    ...METRICS_PORT_OPTION,
  },
  rebuild: {
    ...DATABASE_OPTIONS,
    switch: { type: 'boolean' },
    'batch-size': { type: 'string' },
    'poll-interval': { type: 'string' },
    lease: { type: 'string' },
    'worker-id': { type: 'string' },
    ...UPCASTERS_OPTION,
  },
  status: { ...DATABASE_OPTIONS, json: { type: 'boolean' } },
  export: DATABASE_OPTIONS,
  events: DATABASE_OPTIONS,
  skip: { ...DATABASE_OPTIONS, position: { type: 'string' }, reason: { type: 'string' } },
};

/** An optional integer flag of at least `least`. */
const integerAtLeast = (
  parsed: ReturnType<typeof parseCommandArgs>,
  name: string,
  least: number,
  unit = '',
): number | undefined => {
  const raw = stringFlag(parsed, name);
  if (raw === undefined) return undefined;
  const value = integerFlag(`--${name}`, raw);
  if (value < least) throw usageError(`--${name} must be at least ${least}${unit}`);
  return value;
};

/** `signfold pg SUBCOMMAND …`. */
export const pgCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const [sub, ...rest] = args;
  if (sub === undefined)
    throw usageError(
      'missing subcommand: migrate, import, work, rebuild, status, export, events or skip',
    );
  const options = Object.hasOwn(SUBCOMMAND_OPTIONS, sub) ? SUBCOMMAND_OPTIONS[sub] : undefined;
  if (options === undefined) throw usageError(`unknown subcommand 'pg ${sub}'`);
  const parsed = parseCommandArgs(rest, options);
  // DATABASE_URL, the usual variable, stands in for a missing --database.
  const fromEnv = process.env.DATABASE_URL;
  const fromFlag = stringFlag(parsed, 'database');
  const database = fromFlag ?? (fromEnv === undefined || fromEnv === '' ? undefined : fromEnv);
  if (database === undefined) {
    throw usageError(`pg ${sub}: --database URL (or DATABASE_URL) is required`);
  }
  const schema = stringFlag(parsed, 'schema');
  const target: PgTarget = { database, schemaOptions: schema === undefined ? {} : { schema } };
  const positionals = expectPositionals(parsed.positionals, sub === 'import' ? ['LOG'] : []);
  const batchSize = integerAtLeast(parsed, 'batch-size', 1);
  const pollMs = integerAtLeast(parsed, 'poll-interval', 10, ' (ms)');
  const partitions = integerAtLeast(parsed, 'partitions', 1);
  if (partitions !== undefined && partitions > 1024)
    throw usageError('--partitions must be at most 1024');
  const leaseMs = integerAtLeast(parsed, 'lease', 100, ' (ms)');
  const workerId = stringFlag(parsed, 'worker-id');
  const skipAt = integerAtLeast(parsed, 'position', 1);
  if (sub === 'skip' && skipAt === undefined) throw usageError('pg skip: --position N is required');
  const fromFlag2 = stringFlag(parsed, 'from');
  const fromEnd =
    fromFlag2 !== undefined && choiceFlag('--from', fromFlag2, ['start', 'end']) === 'end';
  const modulePath = stringFlag(parsed, 'reactors');
  if (fromFlag2 !== undefined && modulePath === undefined)
    throw usageError('--from needs --reactors MODULE');
  const reactors =
    modulePath === undefined ? [] : await loadReactorModule(modulePath, 'pg work', 'allow-sql');
  const upcasters = await upcastersFlag(parsed, `pg ${sub}`);
  const metricsPort = metricsPortFlag(parsed);
  const traced = sub === 'work' ? await tracingFlag(parsed, 'pg work') : undefined;
  const bulk = sub === 'import' || sub === 'export' || sub === 'events' || sub === 'migrate';
  const drain = booleanFlag(parsed, 'drain');
  const poolOptions = {
    connectTimeoutMs: connectTimeoutOf(parsed),
    // A worker's statements are bounded by its lease; bulk ones move whole tables.
    ...(sub === 'work' || sub === 'rebuild'
      ? { queryTimeoutMs: workQueryTimeoutMs(leaseMs) }
      : bulk
        ? { queryTimeoutMs: BULK_QUERY_TIMEOUT_MS }
        : {}),
    origin: fromFlag === undefined ? ('DATABASE_URL' as const) : ('--database' as const),
    // The switch holds a connection of its own while the rebuild's workers use theirs.
    ...(sub === 'rebuild' ? { max: 6 } : {}),
  };
  // A following worker stops on SIGINT/SIGTERM within its bound, whatever the
  // pool still waits for: the bound spans the pool's end too.
  const stop = (sub === 'work' && !drain) || sub === 'rebuild' ? stopOnSignals(io) : undefined;
  try {
    return await withPool(database, poolOptions, (pool) =>
      pgSubcommand(
        pool,
        sub,
        {
          target,
          positionals,
          parsed,
          partitions,
          skipAt,
          drain,
          batchSize,
          pollMs,
          leaseMs,
          workerId,
          reactors,
          upcasters,
          fromEnd,
          metrics:
            metricsPort === undefined
              ? undefined
              : { port: metricsPort, connectTimeoutMs: poolOptions.connectTimeoutMs },
          stop,
          tracing: traced?.tracing,
        },
        io,
      ),
    );
  } finally {
    stop?.dispose();
    await traced?.close();
  }
};

/** What {@link pgCommand} parsed, for {@link pgSubcommand}. */
interface PgParsed {
  readonly target: PgTarget;
  readonly positionals: readonly string[];
  readonly parsed: ReturnType<typeof parseCommandArgs>;
  readonly partitions: number | undefined;
  readonly skipAt: number | undefined;
  readonly drain: boolean;
  readonly batchSize: number | undefined;
  readonly pollMs: number | undefined;
  readonly leaseMs: number | undefined;
  readonly workerId: string | undefined;
  readonly reactors: Awaited<ReturnType<typeof loadReactorModule>>;
  readonly upcasters: readonly Upcaster[];
  readonly fromEnd: boolean;
  readonly metrics: WorkOptions['metrics'];
  readonly stop: WorkStop | undefined;
  readonly tracing: Tracing | undefined;
}

/** Runs subcommand `sub` on `pool`. */
const pgSubcommand = async (
  pool: CliPool,
  sub: string,
  {
    target,
    positionals,
    parsed,
    partitions,
    skipAt,
    drain,
    batchSize,
    pollMs,
    leaseMs,
    workerId,
    reactors,
    upcasters,
    fromEnd,
    metrics,
    stop,
    tracing,
  }: PgParsed,
  io: CliIO,
): Promise<ExitCode> => {
  if (sub === 'migrate') {
    const migrated = await migrate(pool, {
      ...target.schemaOptions,
      ...(partitions === undefined ? {} : { partitions }),
    });
    if (migrated.isErr()) throw postgresFailure(migrated.error);
    const { schema, from, to } = migrated.value;
    writeLines(io.stdout, [
      from === to
        ? `schema ${schema} is at version ${to}: nothing to do`
        : `schema ${schema} migrated from version ${from} to ${to} (${migrated.value.partitions} partitions)`,
    ]);
    return EXIT.ok;
  }
  if (sub === 'import') return await pgImport(pool, target, positionals[0] ?? '', io);
  if (sub === 'status') return await pgStatus(pool, target, booleanFlag(parsed, 'json'), io);
  if (sub === 'export') return await pgExport(pool, target, io);
  if (sub === 'events') return await pgEvents(pool, target, io);
  if (sub === 'skip') {
    return await pgSkip(pool, target, skipAt ?? 0, stringFlag(parsed, 'reason'), io);
  }
  if (sub === 'rebuild') {
    return await pgRebuild(
      pool,
      target,
      { switch: booleanFlag(parsed, 'switch'), batchSize, pollMs, leaseMs, workerId, upcasters },
      io,
      stop?.signal ?? new AbortController().signal,
    );
  }
  return await pgWork(
    pool,
    target,
    {
      drain,
      batchSize,
      pollMs,
      leaseMs,
      workerId,
      reactors,
      upcasters,
      fromEnd,
      metrics,
      ...(tracing === undefined ? {} : { tracing }),
    },
    io,
    stop?.signal,
  );
};
