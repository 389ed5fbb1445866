/** `signfold forget --database URL …`: the PostgreSQL side of `forget` (docs/privacy.md). */
import type { ForgetReport, ForgetRequest } from '../../engine/forget-report.js';
import type { ParsedArgs } from '../args.js';
import { CliError } from '../cli-error.js';

/** Forgets `request` in the database `database` (the schema and timeouts from `parsed`). */
export const pgForget = async (
  _parsed: ParsedArgs,
  _database: string,
  _request: ForgetRequest,
  _vacuum: boolean,
): Promise<ForgetReport> => {
  throw new CliError('forget --database: not built yet');
};
