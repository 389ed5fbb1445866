/**
 * After a batch the database refused: the same events again, one at a time.
 * Those that can be written are, and the first that cannot is the one to
 * name (its failure covers that single position). A refusal that cannot be
 * about the events (a lost connection) is not retried here.
 */
import { type BatchWriteError, mayBeAboutAnEvent } from './event-failure.js';
import { type BatchContext, type BatchOutcome, projectPartitionBatch } from './partition-batch.js';
import type { SqlPool } from './sql-client.js';

const checkpointOf = async (
  pool: SqlPool,
  context: BatchContext,
  partition: number,
): Promise<number> => {
  const { rows } = await pool.query<{ position: string }>(
    `SELECT position FROM ${context.schema}.partitions WHERE partition = $1`,
    [partition],
  );
  return Number(rows[0]?.position ?? 0);
};

/**
 * Projects the events of the refused batch (`cause`) one at a time. Resolves
 * when all of them went in (the refusal was not about them) or the claim was
 * lost; throws the failure of the first event that is refused again (a
 * {@link BatchWriteError} of one position), or `cause` when retrying cannot help.
 */
export const retryOneAtATime = async (
  pool: SqlPool,
  context: BatchContext,
  partition: number,
  epoch: number,
  cause: unknown,
): Promise<BatchOutcome> => {
  if (!mayBeAboutAnEvent(cause) || context.batchSize === 1) throw cause;
  const single: BatchContext = { ...context, batchSize: 1 };
  let processed = 0;
  for (;;) {
    const outcome = await projectPartitionBatch(pool, single, partition, epoch);
    if (outcome.kind === 'lost') return outcome;
    processed += outcome.processed;
    if (outcome.caughtUp || (await checkpointOf(pool, context, partition)) >= cause.last) {
      return { kind: 'projected', processed, caughtUp: false };
    }
  }
};
