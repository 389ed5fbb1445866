/** `signfold pg skip --position N`: quarantine one stored event that a worker cannot project. */
import { type SqlPool, skipPosition } from '../../postgres/index.js';
import { CliError, EXIT, type ExitCode } from '../cli-error.js';
import { type CliIO, writeLines } from '../cli-io.js';
import type { PgTarget } from '../postgres-pool.js';
import { postgresFailure } from './failure.js';

/** Skips the event at `position`; prints what that changes. */
export const pgSkip = async (
  pool: SqlPool,
  target: PgTarget,
  position: number,
  reason: string | undefined,
  io: CliIO,
): Promise<ExitCode> => {
  const skipped = await skipPosition(pool, position, {
    ...target.schemaOptions,
    ...(reason === undefined ? {} : { reason }),
  });
  if (skipped.isErr()) throw postgresFailure(skipped.error);
  const outcome = skipped.value;
  if (outcome.kind === 'already-projected') {
    throw new CliError(
      `position ${position} is already projected by every partition that reads it: nothing skipped`,
    );
  }
  if (outcome.kind === 'already-skipped') {
    writeLines(io.stdout, [`position ${position} is already skipped: nothing to do`]);
    return EXIT.ok;
  }
  const { partitions } = outcome;
  const which =
    partitions.length === 1 ? `partition ${partitions[0]}` : `partitions ${partitions.join(', ')}`;
  writeLines(io.stdout, [
    `position ${position} skipped: ${which} will quarantine it instead of projecting it`,
  ]);
  return EXIT.ok;
};
