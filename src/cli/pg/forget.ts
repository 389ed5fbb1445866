/** `signfold forget --database URL …`: the PostgreSQL side of `forget` (docs/privacy.md). */
import type { ForgetReport, ForgetRequest } from '../../engine/forget-report.js';
import { forgetPostgres, vacuumForgotten } from '../../postgres/index.js';
import type { DatabaseValues } from '../database-flags.js';
import { BULK_QUERY_TIMEOUT_MS, withPool } from '../postgres-pool.js';
import { postgresFailure } from './failure.js';

/**
 * Forgets `request` in the database `database` (the schema and timeouts from
 * `values`); with `vacuum`, then runs `VACUUM FULL` on the tables it
 * rewrote. A forget that failed is an error (exit 2, nothing changed); a
 * VACUUM that failed after the forget committed is reported in `remaining`
 * (exit 1), since the old row versions are still in those tables' files.
 */
export const pgForget = async (
  values: DatabaseValues,
  database: string,
  request: ForgetRequest,
  vacuum: boolean,
): Promise<ForgetReport> => {
  const { schema } = values;
  const schemaOptions = schema === undefined ? {} : { schema };
  const poolOptions = {
    connectTimeoutMs: values.connectTimeout,
    // The forget reads and rewrites whole tables in one transaction.
    queryTimeoutMs: BULK_QUERY_TIMEOUT_MS,
    max: 2,
    who: 'signfold forget --database',
  };
  return withPool(database, poolOptions, async (pool) => {
    const forgotten = await forgetPostgres(pool, request, schemaOptions);
    if (forgotten.isErr()) throw postgresFailure(forgotten.error);
    const report = forgotten.value;
    if (!vacuum) return report;
    if (request.dryRun)
      return { ...report, notes: [...report.notes, '--vacuum: nothing to vacuum in a dry run'] };
    const vacuumed = await vacuumForgotten(pool, report, schemaOptions);
    if (vacuumed.isErr()) {
      return {
        ...report,
        remaining: [
          ...report.remaining,
          `old row versions in the tables rewritten (VACUUM FULL failed: ${vacuumed.error.message}); run it again with --vacuum`,
        ],
      };
    }
    const tables = vacuumed.value;
    return {
      ...report,
      notes: [...report.notes, `VACUUM FULL: ${tables.join(', ')}`],
    };
  });
};
