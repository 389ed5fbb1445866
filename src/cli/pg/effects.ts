/**
 * `signfold effects --database URL [--json]` and `effects retry|skip
 * --database URL ID…`: the effects of a PostgreSQL schema. Loaded only with
 * `--database`, so `effects LOG` never loads `pg`. Works while workers run.
 */

import type { EffectsChange, EffectsReport } from '../../core/reactors/effects-report.js';
import type { EditRequest } from '../../core/reactors/effects-selection.js';
import {
  editEffects,
  previewEdit,
  readEffectsReport,
  selectParkedRows,
} from '../../postgres/reactors/effects-admin.js';
import { checkSchema } from '../../postgres/schema/migrate.js';
import { schemaName } from '../../postgres/schema-name.js';
import type { ExitCode } from '../cli-error.js';
import type { CliIO } from '../cli-io.js';
import type { DatabaseValues } from '../database-flags.js';
import { withPool } from '../postgres-pool.js';
import { postgresFailure } from './failure.js';

/** What to do, as `effects-command.ts` parsed it. */
export type EffectsRequest =
  | { readonly kind: 'list'; readonly print: (report: EffectsReport) => ExitCode }
  | {
      readonly kind: 'retry' | 'skip';
      readonly request: EditRequest;
      readonly dryRun: boolean;
      readonly print: (change: EffectsChange) => ExitCode;
    };

/** Runs `request` on the schema that `--database` (`database`) and `--schema` name. */
export const effectsOnDatabase = async (
  values: DatabaseValues,
  database: string,
  request: EffectsRequest,
  _io: CliIO,
): Promise<ExitCode> => {
  const named = schemaName(values.schema);
  if (named.isErr()) throw postgresFailure(named.error);
  const schema = named.value;
  const options = { connectTimeoutMs: values.connectTimeout, origin: '--database' as const };
  return withPool(database, options, async (pool) => {
    const checked = await checkSchema(pool, schema);
    if (checked.isErr()) throw postgresFailure(checked.error);
    if (request.kind === 'list') return request.print(await readEffectsReport(pool, schema));
    const { ids, filter } = request.request;
    const chosen = ids ?? (await selectParkedRows(pool, schema, filter ?? {}));
    if (request.dryRun) return request.print(await previewEdit(pool, schema, request.kind, chosen));
    return request.print(await editEffects(pool, schema, request.kind, chosen));
  });
};
