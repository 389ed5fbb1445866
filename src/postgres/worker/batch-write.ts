/**
 * The fenced write of a partition batch: one transaction that first locks
 * the partition's row, checking that this worker still holds it with the
 * same epoch and that the checkpoint is still the one the batch started
 * from, writes the batch's rows, and ends by moving the checkpoint under the
 * same conditions. Under that lock it also looks for events an operator
 * skipped since they were read (`skipPosition`): then it rolls back and the
 * batch is folded again.
 */
import type { ProjectorStats } from '../../engine/projector-types.js';
import { sqlState } from '../postgres-error.js';
import type { ReactorBatch } from '../reactors/reactor-batch.js';
import type { SchemaName } from '../schema-name.js';
import { withWrites } from '../sql/bound-query.js';
import { send } from '../sql/send.js';
import { type Sql, sql } from '../sql/sql.js';
import { inlined } from '../sql/sql-literal.js';
import {
  checkOut,
  querySeveral,
  rollBack,
  type SqlPool,
  type SqlPoolClient,
} from '../sql-client.js';
import { leaseEnd } from './partition-leases.js';

/** Whose batch is written, and over which positions. */
export interface BatchFence {
  readonly schema: SchemaName;
  readonly workerId: string;
  readonly leaseMs: number;
  readonly partition: number;
  readonly epoch: number;
  /** The checkpoint the batch started from: the write is fenced on it. */
  readonly from: number;
  /** The new checkpoint. */
  readonly to: number;
  /** Nothing is left to read up to the newest event seen (reactors release their due timers). */
  readonly caughtUp: boolean;
}

/** What a batch writes under its fence. */
export interface BatchWrites {
  /** The rows changed and the quarantine: statements sent as one with the checkpoint. */
  readonly writes: readonly Sql[];
  /** What the checkpoint's counters move by. */
  readonly stats: ProjectorStats;
  /** The positions read as not skipped: the write fails when one of them has been since. */
  readonly unskipped: readonly number[];
  /** Whether the claim is locked first (always, but for a batch with no event and no reactor). */
  readonly lock: boolean;
  /** The reactions of the batch, written in its transaction. */
  readonly reacting?: ReactorBatch | undefined;
}

/** How a fenced write ended: `refold` when an event it read was skipped meanwhile. */
export type FencedOutcome = 'committed' | 'lost' | 'refold';

/** A value of a fenced statement: a parameter, or a column of the pass's `unnest` rows. */
type Value = Sql | number;

/**
 * The fence itself, the one rule of every lock and checkpoint move: the
 * partition's row (`row` is its qualifier, empty or `p.`) is still this
 * worker's under the claim's epoch, at the checkpoint the batch read, with
 * a live lease.
 */
const heldAsRead = (
  row: Sql,
  workerId: string,
  claim: { readonly partition: Value; readonly epoch: Value; readonly from: Value },
): Sql =>
  sql`${row}partition = ${claim.partition} AND ${row}owner = ${workerId}
      AND ${row}epoch = ${claim.epoch} AND ${row}position = ${claim.from}
      AND ${row}lease_until > clock_timestamp()`;

/** No event read at `positions` has been skipped since (see {@link whyNotMoved}). */
const noneSkipped = (schema: SchemaName, positions: readonly number[]): Sql =>
  sql`NOT EXISTS (SELECT 1 FROM ${sql.id(schema, 'skipped')}
                   WHERE position = ANY(${positions}::bigint[]))`;

/** The checkpoint's new position and counters, and a renewed lease (`row` as in {@link heldAsRead}). */
const movedCheckpoint = (
  row: Sql,
  to: Value,
  stats: { readonly [K in keyof ProjectorStats]: Value },
  leaseMs: number,
): Sql =>
  sql`position = ${to}, applied = ${row}applied + ${stats.applied},
      no_ops = ${row}no_ops + ${stats.noOps}, conflicts = ${row}conflicts + ${stats.conflicts},
      invalid = ${row}invalid + ${stats.invalid},
      already_applied = ${row}already_applied + ${stats.alreadyApplied},
      updated_at = clock_timestamp(), lease_until = ${leaseEnd(leaseMs)}`;

/** No qualifier: the statement names one table. */
const UNQUALIFIED = sql``;

/**
 * `BEGIN` with its settings, and the lock of the claim. A worker stopped
 * inside the transaction must not hold its row locks for ever. The commit
 * does not wait for its WAL flush: nothing acknowledged to anyone waits on
 * it, and a server crash can only lose the newest batches whole, rows and
 * checkpoint together, which are then projected again (docs/postgres.md,
 * "Durability of the projection"). The lock comes before anything is
 * written: a stale batch stops here, before it touches a row the new owner
 * may be writing, and no claim can slip in until this transaction ends. A
 * partition with no new event (others' appends moved `high`) loads nothing
 * and writes nothing but its checkpoint, whose UPDATE is fenced on its own:
 * no lock needed. Sent as one text, one round trip: hence literals
 * ({@link inlined}), not parameters.
 */
const beginStatements = (fence: BatchFence, lock: boolean): string[] => {
  const begin = [
    sql`BEGIN`,
    sql`SET LOCAL idle_in_transaction_session_timeout = ${Math.ceil(fence.leaseMs)}`,
    sql`SET LOCAL synchronous_commit = off`,
  ];
  const claim = sql`SELECT 1 FROM ${sql.id(fence.schema, 'partitions')}
              WHERE ${heldAsRead(UNQUALIFIED, fence.workerId, fence)} FOR UPDATE`;
  return [...begin, ...(lock ? [claim] : [])].map(inlined);
};

/**
 * The checkpoint's move, fenced on the claim, on the checkpoint the batch
 * read and on no event it read being skipped since.
 */
const checkpointStatement = (fence: BatchFence, { stats, unskipped }: BatchWrites): Sql =>
  sql`UPDATE ${sql.id(fence.schema, 'partitions')}
          SET ${movedCheckpoint(UNQUALIFIED, fence.to, stats, fence.leaseMs)}
        WHERE ${heldAsRead(UNQUALIFIED, fence.workerId, fence)}
          AND ${noneSkipped(fence.schema, unskipped)}`;

/**
 * Writes the rows and the checkpoint: without reactors in one statement,
 * one round trip where there were up to eight; with them, one after the
 * other around the reactions. Resolves whether the checkpoint moved (when
 * it did not, the caller rolls everything back).
 */
const writeAll = async (
  client: SqlPoolClient,
  fence: BatchFence,
  batch: BatchWrites,
): Promise<boolean> => {
  const checkpoint = checkpointStatement(fence, batch);
  if (batch.reacting === undefined) {
    return (await send(client, withWrites(batch.writes, checkpoint))).rowCount === 1;
  }
  for (const write of batch.writes) await send(client, write);
  const clockMs = fence.caughtUp ? Date.now() : undefined;
  await batch.reacting.write(client, { from: fence.from, to: fence.to, clockMs });
  return (await send(client, checkpoint)).rowCount === 1;
};

/**
 * Why the checkpoint did not move. A skip takes the partition's row lock
 * (skip-position.ts), which this transaction holds since its FOR UPDATE: one
 * committed since the events were read is seen here, by a statement that
 * began after the lock was taken. Checked only now, not by a query of its
 * own each batch: a skip is rare, a round trip per batch is not.
 */
const whyNotMoved = async (
  client: SqlPoolClient,
  fence: BatchFence,
  { unskipped }: BatchWrites,
): Promise<FencedOutcome> => {
  const skipped = await send(
    client,
    sql`SELECT 1 FROM ${sql.id(fence.schema, 'skipped')}
         WHERE position = ANY(${unskipped}::bigint[]) LIMIT 1`,
  );
  return (skipped.rowCount ?? 0) > 0 ? 'refold' : 'lost';
};

/**
 * Writes a folded batch in one fenced transaction. Database errors are
 * thrown, but for those of a batch whose claim turned out lost meanwhile.
 */
export const writeFenced = async (
  pool: SqlPool,
  fence: BatchFence,
  batch: BatchWrites,
): Promise<FencedOutcome> => {
  let client: SqlPoolClient | undefined;
  try {
    client = await checkOut(pool);
    const began = await querySeveral(client, beginStatements(fence, batch.lock));
    const held = batch.lock ? (began.at(-1)?.rowCount ?? 0) === 1 : true;
    const outcome = !held
      ? 'lost'
      : (await writeAll(client, fence, batch))
        ? 'committed'
        : await whyNotMoved(client, fence, batch);
    // Nothing written stays unless the checkpoint moved.
    await client.query(outcome === 'committed' ? 'COMMIT' : 'ROLLBACK');
    client.release();
    return outcome;
  } catch (cause) {
    if (client !== undefined) client.release(await rollBack(client, cause));
    // A stale batch can also fail on the rows the new owner wrote first. A
    // server that did not answer is not asked (each question would wait out
    // a deadline of its own): the failure is reported as it is.
    if (sqlState(cause) !== undefined && !(await stillHeld(pool, fence))) return 'lost';
    throw cause;
  }
};

/**
 * Whether the fence's worker still owns its partition under its epoch (its
 * lease may have lapsed meanwhile, unclaimed). `true` when the server cannot
 * say: a claim is never reported lost on a guess.
 */
export const stillHeld = async (
  pool: SqlPool,
  {
    schema,
    workerId,
    partition,
    epoch,
  }: Pick<BatchFence, 'schema' | 'workerId' | 'partition' | 'epoch'>,
): Promise<boolean> => {
  try {
    const { rows } = await send<{ owner: string | null; epoch: string }>(
      pool,
      sql`SELECT owner, epoch FROM ${sql.id(schema, 'partitions')} WHERE partition = ${partition}`,
    );
    return rows[0]?.owner === workerId && Number(rows[0].epoch) === epoch;
  } catch {
    return true;
  }
};

/** One partition's batch in a pass: its fence and what it writes (no reactions). */
export interface PassPart {
  readonly fence: BatchFence;
  readonly batch: BatchWrites;
}

/** The partitions table's row in a pass's statements, and the claim its `unnest` row gives. */
const ROW = sql`p.`;
const PASS_CLAIM = { partition: sql`v.partition`, epoch: sql`v.epoch`, from: sql`v.after` };

/**
 * The claims of a pass's partitions (all of one worker and schema), locked in one
 * statement under the same conditions as {@link beginStatements}' single claim.
 */
const passLockStatement = (parts: readonly PassPart[]): Sql => {
  const first = (parts[0] as PassPart).fence;
  return sql`SELECT p.partition
               FROM ${sql.id(first.schema, 'partitions')} AS p,
                    unnest(${parts.map((x) => x.fence.partition)}::integer[],
                           ${parts.map((x) => x.fence.epoch)}::bigint[],
                           ${parts.map((x) => x.fence.from)}::bigint[]) AS v(partition, epoch, after)
              WHERE ${heldAsRead(ROW, first.workerId, PASS_CLAIM)}
              FOR UPDATE OF p`;
};

/**
 * Every checkpoint of a pass moved in one statement, each fenced as
 * {@link checkpointStatement} fences one: its row count is the number of
 * partitions whose checkpoint moved.
 */
const passCheckpointStatement = (parts: readonly PassPart[]): Sql => {
  const first = (parts[0] as PassPart).fence;
  const column = (of: (part: PassPart) => number): number[] => parts.map(of);
  const stats = {
    applied: sql`v.applied`,
    noOps: sql`v.no_ops`,
    conflicts: sql`v.conflicts`,
    invalid: sql`v.invalid`,
    alreadyApplied: sql`v.already_applied`,
  };
  return sql`UPDATE ${sql.id(first.schema, 'partitions')} AS p
          SET ${movedCheckpoint(ROW, sql`v.upto`, stats, first.leaseMs)}
         FROM unnest(${column((x) => x.fence.partition)}::integer[],
                     ${column((x) => x.fence.epoch)}::bigint[],
                     ${column((x) => x.fence.from)}::bigint[],
                     ${column((x) => x.fence.to)}::bigint[],
                     ${column((x) => x.batch.stats.applied)}::bigint[],
                     ${column((x) => x.batch.stats.noOps)}::bigint[],
                     ${column((x) => x.batch.stats.conflicts)}::bigint[],
                     ${column((x) => x.batch.stats.invalid)}::bigint[],
                     ${column((x) => x.batch.stats.alreadyApplied)}::bigint[])
              AS v(partition, epoch, after, upto, applied, no_ops, conflicts, invalid, already_applied)
        WHERE ${heldAsRead(ROW, first.workerId, PASS_CLAIM)}
          AND ${noneSkipped(
            first.schema,
            parts.flatMap((x) => x.batch.unskipped),
          )}`;
};

/**
 * How a pass's write ended: committed; rolled back because claims it
 * locked are no longer held as read (`unheld`, naming them); or rolled back
 * because a checkpoint did not move (an event skipped since it was read).
 */
export type PassWrite =
  | { readonly kind: 'committed' }
  | { readonly kind: 'unheld'; readonly partitions: readonly number[] }
  | { readonly kind: 'unmoved' };

/**
 * Writes the folded batches of several partitions in one transaction: one
 * round trip locks every claim, one statement writes every partition's rows
 * and moves every checkpoint (the rows of different partitions are distinct:
 * a request and its participants belong to one partition, and each partition
 * keeps its own templates), one commits. All or nothing: when a claim is not
 * held, or a checkpoint does not move, it rolls back and says which (see
 * {@link PassWrite}); the caller then projects the partitions one by one,
 * which says why. Database errors are thrown, also rolled back.
 */
export const writeFencedPass = async (
  pool: SqlPool,
  parts: readonly PassPart[],
): Promise<PassWrite> => {
  const first = parts[0];
  if (first === undefined) return { kind: 'committed' };
  let client: SqlPoolClient | undefined;
  try {
    client = await checkOut(pool);
    const begin = [...beginStatements(first.fence, false), inlined(passLockStatement(parts))];
    const locked = (await querySeveral<{ partition: number }>(client, begin)).at(-1)?.rows ?? [];
    let outcome: PassWrite = { kind: 'committed' };
    if (locked.length < parts.length) {
      const held = new Set(locked.map((row) => row.partition));
      const partitions = parts.map((part) => part.fence.partition).filter((p) => !held.has(p));
      outcome = { kind: 'unheld', partitions };
    } else {
      const writes = parts.flatMap((part) => part.batch.writes);
      const written = await send(client, withWrites(writes, passCheckpointStatement(parts)));
      if (written.rowCount !== parts.length) outcome = { kind: 'unmoved' };
    }
    await client.query(outcome.kind === 'committed' ? 'COMMIT' : 'ROLLBACK');
    client.release();
    return outcome;
  } catch (cause) {
    if (client !== undefined) client.release(await rollBack(client, cause));
    throw cause;
  }
};
