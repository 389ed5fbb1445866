/**
 * One batch of one partition: read its events (and every template event)
 * after its checkpoint, fold them with the core projector, and write the
 * changed rows, the quarantine and the new checkpoint in one transaction
 * that first locks the partition's row, checking that this worker still holds
 * it with the same epoch and that the checkpoint is still the one the batch
 * started from, and ends by updating that row under the same conditions.
 * Under that lock it also looks for events an operator skipped since they
 * were read (`skipPosition`): then it rolls back and the batch is folded
 * again. A failure after the events were read is a `BatchWriteError` naming
 * their positions, which the worker narrows down to one event.
 */

import type { Reactor } from '../../core/reactors/reactor-types.js';
import type { Upcaster } from '../../core/upcasters/upcaster-types.js';
import { createProjector } from '../../engine/projector.js';
import type { ProjectorStats } from '../../engine/projector-types.js';
import type { Tracing } from '../../engine/tracing.js';
import { type EventRow, partitionEventsSql, recordOfRow } from '../log/event-rows.js';
import { sqlState } from '../postgres-error.js';
import { ReactorBatch } from '../reactors/reactor-batch.js';
import { catchUpReactorsOnce } from '../reactors/reactor-catch-up.js';
import { EVERY_PARTITION } from '../schema/migration-partitions.js';
import type { SchemaName } from '../schema-name.js';
import { type BoundQuery, withWrites } from '../sql/bound-query.js';
import { integerLiteral, textLiteral } from '../sql/sql-literal.js';
import {
  checkOut,
  queryPrepared,
  querySeveral,
  rollBack,
  type SqlPool,
  type SqlPoolClient,
} from '../sql-client.js';
import { FirstSeen } from '../tables/first-seen.js';
import { changeStatements, loadRecords } from '../tables/projection-tables.js';
import { quarantineStatement } from '../tables/quarantine-table.js';
import { keysOf, minus } from './batch-keys.js';
import { type BatchTrace, startBatchTrace } from './batch-trace.js';
import { BatchWriteError, mayBeAboutAnEvent } from './event-failure.js';
import { leaseEnd } from './partition-leases.js';
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

const ZERO: ProjectorStats = { applied: 0, noOps: 0, conflicts: 0, invalid: 0, alreadyApplied: 0 };

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
 * Partition `$1`'s row (its checkpoint, its claim, and the newest position of
 * all) and, while `$2` holds it under epoch `$3`, its next `$4` events up to
 * that newest position: one round trip, on one snapshot. A row with no event
 * (`position` NULL) when there is none to read or the claim is not `$2`'s.
 */
const selectBatchSql = (schema: SchemaName): string =>
  `SELECT p.position AS checkpoint, p.owner, p.epoch, p.high, e.*
     FROM (SELECT position, owner, epoch, (SELECT max(position) FROM ${schema}.events) AS high
             FROM ${schema}.partitions WHERE partition = $1) AS p
     LEFT JOIN LATERAL (${partitionEventsSql(schema, {
       partition: '$1',
       after: 'p.position',
       upTo: 'p.high',
       limit: '$4',
     })}) AS e ON p.owner = $2 AND p.epoch = $3
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
  const read = await queryPrepared<BatchRow>(pool, selectBatchSql(schema), [
    partition,
    workerId,
    epoch,
    context.batchSize,
  ]);
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

/** Folds the rows read and writes the result in one fenced transaction. */
const foldAndWrite = async (
  pool: SqlPool,
  context: BatchContext,
  { partition, epoch, from, to, caughtUp }: BatchRange,
  rows: readonly PartitionEventRow[],
  trace?: BatchTrace,
): Promise<BatchOutcome> => {
  const { schema, workerId } = context;

  // Fold: template events change every partition's templates, but only
  // partition 0 counts them and quarantines them, so each is counted once.
  const records = rows.map(recordOfRow);
  const templateRows = templateRowsOf(partition);
  const reacting =
    context.reactors !== undefined && context.reactors.length > 0
      ? new ReactorBatch({ schema, partition, reactors: context.reactors })
      : undefined;
  const keys = keysOf(records, reacting !== undefined);
  const before = await loadRecords(pool, schema, keys, templateRows);
  const projector = createProjector(
    {
      policy: 'skip',
      audit: false,
      strict: context.strict,
      upcasters: context.upcasters ?? [],
      ...(reacting === undefined ? {} : { onApplied: reacting.onApplied }),
      ...(trace === undefined ? {} : { tracing: trace.tracing }),
    },
    { state: before, checkpoint: from, stats: ZERO },
  );
  let uncounted = ZERO;
  const uncountedPositions = new Set<number>();
  const firstSeen = new FirstSeen(before);
  records.forEach((record, i) => {
    const counted = partition === 0 || rows[i]?.partition !== EVERY_PARTITION;
    if (counted) {
      firstSeen.note(projector, record, projector.applyRecord(record));
      return;
    }
    const earlier = projector.stats();
    firstSeen.note(projector, record, projector.applyRecord(record));
    uncounted = minus(uncounted, minus(earlier, projector.stats()));
    uncountedPositions.add(record.position);
  });
  const stats = minus(projector.stats(), uncounted);
  const quarantine = projector.quarantine().filter((q) => !uncountedPositions.has(q.position));
  await context.onFolded?.(partition);

  let client: SqlPoolClient | undefined;
  try {
    client = await checkOut(pool);
    // A worker stopped inside the transaction must not hold its row locks for
    // ever. The commit does not wait for its WAL flush: nothing acknowledged
    // to anyone waits on it, and a server crash can only lose the newest
    // batches whole, rows and checkpoint together, which are then projected
    // again (docs/postgres.md, "Durability of the projection").
    const begin = [
      'BEGIN',
      `SET LOCAL idle_in_transaction_session_timeout = ${integerLiteral(Math.ceil(context.leaseMs))}`,
      'SET LOCAL synchronous_commit = off',
    ];
    // Lock the claim before writing anything: a stale batch stops here, before
    // it touches a row the new owner may be writing, and no claim can slip in
    // until this transaction ends. A partition with no new event (others'
    // appends moved `high`) loads nothing (no keys) and writes nothing but
    // its checkpoint, whose UPDATE is fenced on its own: no lock needed.
    // Sent with the BEGIN, one round trip: hence literals, not parameters.
    const lock =
      records.length === 0 && reacting === undefined
        ? []
        : [
            `SELECT 1 FROM ${schema}.partitions
              WHERE partition = ${integerLiteral(partition)} AND owner = ${textLiteral(workerId)}
                AND epoch = ${integerLiteral(epoch)} AND position = ${integerLiteral(from)}
                AND lease_until > clock_timestamp() FOR UPDATE`,
          ];
    const began = await querySeveral(client, [...begin, ...lock]);
    const held = lock.length === 0 ? { rowCount: 1 } : (began.at(-1) ?? { rowCount: 0 });
    if (held.rowCount !== 1) {
      await client.query('ROLLBACK');
      client.release();
      return { kind: 'lost' };
    }
    const writes = changeStatements(schema, before, projector.state(), templateRows, firstSeen, to);
    const quarantined = quarantineStatement(schema, quarantine);
    if (quarantined !== undefined) writes.push(quarantined);
    const checkpoint: BoundQuery = {
      text: `UPDATE ${schema}.partitions
          SET position = $4, applied = applied + $5, no_ops = no_ops + $6,
              conflicts = conflicts + $7, invalid = invalid + $8,
              already_applied = already_applied + $9, updated_at = clock_timestamp(),
              lease_until = ${leaseEnd('$10')}
        WHERE partition = $1 AND owner = $2 AND epoch = $3 AND position = $11
          AND lease_until > clock_timestamp()
          AND NOT EXISTS (SELECT 1 FROM ${schema}.skipped WHERE position = ANY($12::bigint[]))`,
      values: [
        partition,
        workerId,
        epoch,
        to,
        stats.applied,
        stats.noOps,
        stats.conflicts,
        stats.invalid,
        stats.alreadyApplied,
        context.leaseMs,
        from,
        // An operator skipped one of these events since they were read (see below).
        rows.filter((row) => row.skipped === null).map((row) => row.position),
      ],
    };
    let fenced: { rowCount: number | null };
    if (reacting === undefined) {
      // The rows, the quarantine and the checkpoint in one statement: one round trip where
      // there were up to eight. Should the checkpoint not move, the rollback below undoes all.
      const sent = withWrites(writes, checkpoint);
      fenced = await client.query(sent.text, sent.values);
    } else {
      for (const write of writes) await client.query(write.text, write.values);
      await reacting.write(client, { from, to, clockMs: caughtUp ? Date.now() : undefined });
      fenced = await client.query(checkpoint.text, checkpoint.values);
    }
    if (fenced.rowCount !== 1) {
      // A skip takes the partition's row lock (skip-position.ts), which this
      // transaction holds since its FOR UPDATE: one committed since the events
      // were read is seen here, by a statement that began after the lock was
      // taken. Checked in the checkpoint's own UPDATE, not a query of its own:
      // a skip is rare, a round trip per batch is not. Nothing written stays.
      const skipped = await client.query(
        `SELECT 1 FROM ${schema}.skipped WHERE position = ANY($1::bigint[]) LIMIT 1`,
        [rows.filter((row) => row.skipped === null).map((row) => row.position)],
      );
      await client.query('ROLLBACK');
      client.release();
      // Fold again, without the skipped event.
      if ((skipped.rowCount ?? 0) > 0) return { kind: 'projected', processed: 0, caughtUp: false };
      return { kind: 'lost' };
    }
    await client.query('COMMIT');
    client.release();
  } catch (cause) {
    if (client !== undefined) client.release(await rollBack(client, cause));
    // A stale batch can also fail on the rows the new owner wrote first. A
    // server that did not answer is not asked (each question would wait out
    // a deadline of its own): the failure is reported as it is.
    if (
      sqlState(cause) !== undefined &&
      !(await stillHeld(pool, schema, workerId, partition, epoch))
    )
      return { kind: 'lost' };
    throw cause;
  }
  context.onProjected?.(stats);
  const processed = records.length - uncountedPositions.size;
  return { kind: 'projected', processed, caughtUp };
};

/**
 * Whether `workerId` still owns `partition` under `epoch` (its lease may
 * have lapsed meanwhile, unclaimed). `true` when the server cannot say: a
 * claim is never reported lost on a guess.
 */
export const stillHeld = async (
  pool: SqlPool,
  schema: SchemaName,
  workerId: string,
  partition: number,
  epoch: number,
): Promise<boolean> => {
  try {
    const { rows } = await pool.query<{ owner: string | null; epoch: string }>(
      `SELECT owner, epoch FROM ${schema}.partitions WHERE partition = $1`,
      [partition],
    );
    return rows[0]?.owner === workerId && Number(rows[0].epoch) === epoch;
  } catch {
    return true;
  }
};

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
