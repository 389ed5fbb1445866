/**
 * `signfold pg migrate|import|work`: the PostgreSQL adapter from the command
 * line. Loaded only when a `pg` command runs, so the other commands never
 * load `pg` (an optional peer dependency).
 */
import type { PostgresError } from '../postgres/index.js';
import {
  booleanFlag,
  expectPositionals,
  integerFlag,
  type OptionTable,
  parseCommandArgs,
  stringFlag,
} from './args.js';
import { CliError, EXIT, type ExitCode, usageError } from './cli-error.js';
import type { CliIO } from './cli-io.js';
import { pgImport } from './pg-import.js';
import { openPool } from './pg-pool.js';
import { pgWork } from './pg-work.js';

/** The flags every `pg` subcommand takes. */
const COMMON: OptionTable = { database: { type: 'string' }, schema: { type: 'string' } };

const SUBCOMMAND_OPTIONS: Readonly<Record<string, OptionTable>> = {
  migrate: COMMON,
  import: COMMON,
  work: {
    ...COMMON,
    drain: { type: 'boolean' },
    'batch-size': { type: 'string' },
    'poll-interval': { type: 'string' },
  },
};

/** A failure of the database, as one line (exit 2). */
export const postgresFailure = (error: PostgresError): CliError => new CliError(error.message);

/** The parsed options shared by the subcommands. */
export interface PgTarget {
  readonly database: string;
  readonly schema: string | undefined;
}

/** `signfold pg SUBCOMMAND …`. */
export const pgCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const [sub, ...rest] = args;
  if (sub === undefined) throw usageError('missing subcommand: migrate, import or work');
  const options = Object.hasOwn(SUBCOMMAND_OPTIONS, sub) ? SUBCOMMAND_OPTIONS[sub] : undefined;
  if (options === undefined) throw usageError(`unknown subcommand 'pg ${sub}'`);
  const parsed = parseCommandArgs(rest, options);
  const database = stringFlag(parsed, 'database');
  if (database === undefined) throw usageError(`pg ${sub}: --database URL is required`);
  const target: PgTarget = { database, schema: stringFlag(parsed, 'schema') };
  const positionals = expectPositionals(parsed.positionals, sub === 'import' ? ['LOG'] : []);
  const batch = stringFlag(parsed, 'batch-size');
  const poll = stringFlag(parsed, 'poll-interval');
  const batchSize = batch === undefined ? undefined : integerFlag('--batch-size', batch);
  const pollMs = poll === undefined ? undefined : integerFlag('--poll-interval', poll);
  if (batchSize !== undefined && batchSize < 1) throw usageError('--batch-size must be at least 1');
  if (pollMs !== undefined && pollMs < 10)
    throw usageError('--poll-interval must be at least 10 (ms)');
  const pool = await openPool(database);
  try {
    const { migrate } = await import('../postgres/index.js');
    if (sub === 'migrate') {
      const migrated = await migrate(
        pool,
        target.schema === undefined ? {} : { schema: target.schema },
      );
      if (migrated.isErr()) throw postgresFailure(migrated.error);
      const { schema, from, to } = migrated.value;
      io.stdout.write(
        from === to
          ? `schema ${schema} is at version ${to}: nothing to do\n`
          : `schema ${schema} migrated from version ${from} to ${to}\n`,
      );
      return EXIT.ok;
    }
    if (sub === 'import') return await pgImport(pool, target, positionals[0] ?? '', io);
    return await pgWork(
      pool,
      target,
      { drain: booleanFlag(parsed, 'drain'), batchSize, pollMs },
      io,
    );
  } finally {
    await pool.end().catch(() => undefined);
  }
};
