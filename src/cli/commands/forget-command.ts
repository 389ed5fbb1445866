/**
 * `signfold forget (LOG | --database URL) (--participant ID | --user ID |
 * --name TEXT)... [--company ID] [--dry-run] [--json] [--vacuum]`: erases one
 * person's names from everything signfold stores, replacing them by a
 * pseudonym, and records the erasure in the ledger (docs/privacy.md).
 */
import type { ForgetReport, ForgetRequest } from '../../engine/forget-report.js';
import {
  booleanFlag,
  expectPositionals,
  idFlag,
  type OptionTable,
  type ParsedArgs,
  parseCommandArgs,
  stringFlag,
} from '../args.js';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.js';
import type { CliIO } from '../cli-io.js';
import { writeForgetReport } from '../forget-output.js';
import { DATABASE_OPTIONS } from '../pg/pool.js';

/** The flags of `forget`. */
export const FORGET_OPTIONS: OptionTable = {
  ...DATABASE_OPTIONS,
  participant: { type: 'string', multiple: true },
  user: { type: 'string', multiple: true },
  name: { type: 'string', multiple: true },
  company: { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  vacuum: { type: 'boolean' },
};

const listFlag = (parsed: ParsedArgs, name: string): readonly string[] => {
  const value = (parsed.values as Record<string, unknown>)[name];
  return Array.isArray(value) ? (value as string[]) : [];
};

const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];

/** Reads the person to forget from the flags; a usage error when none is named. */
export const forgetRequestOf = (parsed: ParsedArgs): ForgetRequest => {
  const participantIds = unique(
    listFlag(parsed, 'participant').map((v) => idFlag('--participant', v)),
  );
  const userIds = unique(listFlag(parsed, 'user').map((v) => idFlag('--user', v)));
  const names = unique(
    listFlag(parsed, 'name').map((name) => {
      if (name.length === 0) throw usageError('--name must not be empty');
      return name.normalize('NFC');
    }),
  );
  if (participantIds.length + userIds.length + names.length === 0) {
    throw usageError(
      'say whom to forget: --participant ID, --user ID or --name TEXT (each may be repeated)',
    );
  }
  const company = stringFlag(parsed, 'company');
  return {
    participantIds,
    userIds,
    names,
    dryRun: booleanFlag(parsed, 'dry-run'),
    ...(company === undefined ? {} : { companyId: idFlag('--company', company) }),
  };
};

/**
 * Runs `forget` with `args` (the words after `forget`): exit 0 when every
 * place signfold owns was rewritten, 1 when something still holds a name that
 * forget cannot rewrite (listed), 2 on usage, I/O or database errors.
 */
export const forgetCommand = async (args: readonly string[], io: CliIO): Promise<ExitCode> => {
  const parsed = parseCommandArgs(args, FORGET_OPTIONS);
  const request = forgetRequestOf(parsed);
  const database = stringFlag(parsed, 'database');
  let report: ForgetReport;
  if (database === undefined) {
    const [log = ''] = expectPositionals(parsed.positionals, ['LOG']);
    if (booleanFlag(parsed, 'vacuum')) throw usageError('--vacuum goes with --database');
    for (const flag of ['schema', 'connect-timeout']) {
      if (stringFlag(parsed, flag) !== undefined)
        throw usageError(`--${flag} goes with --database`);
    }
    const { forgetFileLog } = await import('../../store/forget/forget-file-log.js');
    const forgotten = await forgetFileLog(log, request);
    if (forgotten.isErr()) throw new CliError(forgotten.error.message);
    report = forgotten.value;
  } else {
    expectPositionals(parsed.positionals, []);
    const { pgForget } = await import('../pg/forget.js');
    report = await pgForget(parsed, database, request, booleanFlag(parsed, 'vacuum'));
  }
  writeForgetReport(io, report, booleanFlag(parsed, 'json'));
  return report.remaining.length > 0 ? EXIT.findings : EXIT.ok;
};
