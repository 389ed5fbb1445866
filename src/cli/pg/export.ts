/**
 * `signfold pg export`: the projection tables read back as the JSON that
 * `signfold replay --json` prints for the same events (the same arrays,
 * member names and value types), plus the quarantine table.
 */

import {
  listParticipants,
  listSignRequests,
  listTemplates,
} from '../../core/projections/projection-state.js';
import { DEFAULT_SCHEMA, readProjections, type SqlPool } from '../../postgres/index.js';
import { EXIT, type ExitCode } from '../cli-error.js';
import { type CliIO, writeJson } from '../cli-io.js';
import { postgresFailure } from './failure.js';
import type { PgTarget } from './pool.js';

/** Prints the tables as one JSON document, read in one snapshot. */
export const pgExport = async (pool: SqlPool, target: PgTarget, io: CliIO): Promise<ExitCode> => {
  const read = await readProjections(pool, target.schemaOptions);
  if (read.isErr()) throw postgresFailure(read.error);
  const { state, checkpoint, quarantine } = read.value;
  const document = {
    schema: target.schemaOptions.schema ?? DEFAULT_SCHEMA,
    checkpoint,
    templates: [...listTemplates(state)],
    signRequests: [...listSignRequests(state)],
    participants: [...listParticipants(state)],
    quarantine,
  };
  writeJson(io.stdout, document);
  return EXIT.ok;
};
