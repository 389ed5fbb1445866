/**
 * One batch of one partition: read its events (and every template event)
 * after its checkpoint, fold them with the core projector (batch-fold.ts),
 * and write the changed rows, the quarantine and the new checkpoint in one
 * fenced transaction (batch-write.ts). A failure after the events were read
 * is a `BatchWriteError` naming their positions, which the worker narrows
 * down to one event.
 */

import type { Reactor } from '../../core/reactors/reactor-types.js';
import type { Upcaster } from '../../core/upcasters/upcaster-types.js';
import type { ProjectorStats } from '../../engine/projector-types.js';
import type { Tracing } from '../../engine/tracing.js';
import { type EventRow, partitionEventsSql, recordOfRow } from '../log/event-rows.js';
import { ReactorBatch } from '../reactors/reactor-batch.js';
import { catchUpReactorsOnce } from '../reactors/reactor-catch-up.js';
import type { SchemaName } from '../schema-name.js';
import { send, sendPrepared } from '../sql/send.js';
import { type Sql, sql } from '../sql/sql.js';
import type { SqlPool } from '../sql-client.js';
import { loadRecords } from '../tables/projection-tables.js';
import { keysOf } from './batch-keys.js';
import { type BatchTrace, startBatchTrace } from './batch-trace.js';
import { type BatchFence, writeFenced } from './batch-write.js';
import { BatchWriteError, mayBeAboutAnEvent } from './event-failure.js';
import { foldedWrites } from './folded-writes.js';
import { templateRowsOf } from './partition-templates.js';

/** What a batch needs to know besides the partition. */
export interface BatchContext {
  readonly schema: SchemaName;
  readonly workerId: string;
  readonly leaseMs: number;
  readonly batchSize: number;
  readonly strict: boolean;
  /** Applied to each record before it is decoded (see `ProjectionWorkerOptions.upcasters`). */
  readonly upcasters?: readonly Upcaster[];
  /** Called between folding and writing (tests pause a worker there). */
  readonly onFolded?: ((partition: number) => void | Promise<void>) | undefined;
  /** Reactors whose effects are enqueued in the batch's transaction (none: no reactor work at all). */
  readonly reactors?: readonly Reactor[] | undefined;
  /** Told what a batch counted once it committed (metrics): never for a batch rolled back. */
  readonly onProjected?: ((stats: ProjectorStats) => void) | undefined;
  /** Spans of each batch and each record it folds (see batch-trace.ts); enabled only. */
  readonly tracing?: Tracing | undefined;
}

/** What a batch did. */
export type BatchOutcome =
  | {
      readonly kind: 'projected';
      /** Records this partition counts (template events only in partition 0). */
      readonly processed: number;
      /** Nothing is left to read up to the newest event seen. */
      readonly caughtUp: boolean;
    }
  /** The partition is no longer this worker's (another claimed it): nothing was written. */
  | { readonly kind: 'lost' };

type PartitionEventRow = EventRow & { readonly partition: number };

/** A row of {@link selectBatchSql}: the partition's row, and one event read or none. */
type BatchRow = {
  readonly checkpoint: string;
  readonly owner: string | null;
  readonly epoch: string;
  readonly high: string | null;
} & (PartitionEventRow | { readonly position: null });

const isEventRow = (row: BatchRow): row is BatchRow & PartitionEventRow => row.position !== null;

/**
 * `partition`'s row (its checkpoint, its claim, and the newest position of
 * all) and, while `workerId` holds it under `epoch`, its next `limit` events
 * up to that newest position: one round trip, on one snapshot. A row with no
 * event (`position` NULL) when there is none to read or the claim is not
 * `workerId`'s.
 */
const selectBatchSql = (
  schema: SchemaName,
  {
    partition,
    workerId,
    epoch,
    limit,
  }: { partition: number; workerId: string; epoch: number; limit: number },
): Sql =>
  sql`SELECT p.position AS checkpoint, p.owner, p.epoch, p.high, e.*
     FROM (SELECT position, owner, epoch, (SELECT max(position) FROM ${sql.id(schema, 'events')}) AS high
             FROM ${sql.id(schema, 'partitions')} WHERE partition = ${partition}) AS p
     LEFT JOIN LATERAL (${partitionEventsSql(schema, {
       partition,
       after: sql`p.position`,
       upTo: sql`p.high`,
       limit,
     })}) AS e ON p.owner = ${workerId} AND p.epoch = ${epoch}
    ORDER BY e.position`;

/**
 * Projects one batch of `partition` under the claim `epoch`. Database errors
 * are thrown (the caller turns them into a `Result`); a lost claim is an
 * outcome, not an error.
 */
export const projectPartitionBatch = async (
  pool: SqlPool,
  context: BatchContext,
  partition: number,
  epoch: number,
): Promise<BatchOutcome> => {
  const { schema, workerId } = context;
  const read = await sendPrepared<BatchRow>(
    pool,
    selectBatchSql(schema, { partition, workerId, epoch, limit: context.batchSize }),
  );
  const row = read.rows[0];
  if (row === undefined || row.owner !== workerId || Number(row.epoch) !== epoch) {
    return { kind: 'lost' };
  }
  if (context.reactors !== undefined && context.reactors.length > 0) {
    // Before the batch, as ever; it folds up to the checkpoint only, which the
    // events just read follow (the batch's write is fenced on it).
    if (!(await catchUpReactorsOnce(pool, context, partition, epoch))) return { kind: 'lost' };
  }
  const from = Number(row.checkpoint);
  const high = Number(row.high ?? 0);
  if (high <= from) {
    // Caught up: with reactors, the timers due by the wall clock are released (and only now).
    if (context.reactors === undefined || context.reactors.length === 0) {
      return { kind: 'projected', processed: 0, caughtUp: true };
    }
    return foldAndWrite(pool, context, { partition, epoch, from, to: from, caughtUp: true }, []);
  }
  const events = read.rows.filter(isEventRow);
  const caughtUp = events.length < context.batchSize;
  const to = caughtUp ? high : Number(events.at(-1)?.position);
  const trace =
    context.tracing === undefined
      ? undefined
      : startBatchTrace(context.tracing, partition, from, to);
  try {
    const range = { partition, epoch, from, to, caughtUp };
    const outcome = await foldAndWrite(pool, context, range, events, trace);
    trace?.end(batchOutcomeName(outcome), events.length);
    return outcome;
  } catch (cause) {
    trace?.end('failed', events.length, cause instanceof Error ? cause.message : String(cause));
    // Say which events: the worker narrows a refusal down to one of them.
    const first = Number(events[0]?.position ?? to);
    throw new BatchWriteError(partition, first, to, events.length, cause);
  }
};

/** A batch's outcome on its span: `refolded` when nothing was written since an event was skipped. */
const batchOutcomeName = (outcome: BatchOutcome): string =>
  outcome.kind === 'lost'
    ? 'lost'
    : outcome.processed === 0 && !outcome.caughtUp
      ? 'refolded'
      : 'committed';

/** Where a batch stands: its partition and claim, and the positions it covers. */
interface BatchRange {
  readonly partition: number;
  readonly epoch: number;
  readonly from: number;
  readonly to: number;
  readonly caughtUp: boolean;
}

/**
 * Loads the records the rows name, folds the rows onto them (batch-fold.ts)
 * and writes the result in one fenced transaction (batch-write.ts).
 */
const foldAndWrite = async (
  pool: SqlPool,
  context: BatchContext,
  range: BatchRange,
  rows: readonly PartitionEventRow[],
  trace?: BatchTrace,
): Promise<BatchOutcome> => {
  const { schema, workerId, leaseMs } = context;
  const { partition } = range;
  const records = rows.map(recordOfRow);
  const templateRows = templateRowsOf(partition);
  const reacting =
    context.reactors !== undefined && context.reactors.length > 0
      ? new ReactorBatch({ schema, partition, reactors: context.reactors })
      : undefined;
  const before = await loadRecords(
    pool,
    schema,
    keysOf(records, reacting !== undefined),
    templateRows,
  );
  const folded = foldedWrites(
    schema,
    {
      partition,
      from: range.from,
      records,
      before,
      strict: context.strict,
      upcasters: context.upcasters ?? [],
      onApplied: reacting?.onApplied,
      tracing: trace?.tracing,
    },
    rows,
    templateRows,
    range.to,
  );
  await context.onFolded?.(partition);
  const fence: BatchFence = { schema, workerId, leaseMs, ...range };
  const { writes, stats, unskipped } = folded;
  const outcome = await writeFenced(pool, fence, {
    writes,
    stats,
    unskipped,
    lock: records.length > 0 || reacting !== undefined,
    reacting,
  });
  if (outcome === 'lost') return { kind: 'lost' };
  // Fold again, without the skipped event.
  if (outcome === 'refold') return { kind: 'projected', processed: 0, caughtUp: false };
  context.onProjected?.(stats);
  return { kind: 'projected', processed: folded.processed, caughtUp: range.caughtUp };
};

const checkpointOf = async (
  pool: SqlPool,
  context: BatchContext,
  partition: number,
): Promise<number> => {
  const { rows } = await send<{ position: string }>(
    pool,
    sql`SELECT position FROM ${sql.id(context.schema, 'partitions')} WHERE partition = ${partition}`,
  );
  return Number(rows[0]?.position ?? 0);
};

/**
 * After a batch the database refused, projects its events (`cause`) one at
 * a time: those that can be written are, and the first that cannot is the
 * one to name (its failure covers that single position). A refusal that
 * cannot be about the events (a lost connection) is not retried here. Resolves
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
