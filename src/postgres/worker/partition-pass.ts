/**
 * One pass over several partitions of one worker: the batches of every
 * partition with work, read in one statement, folded one by one, written in
 * one transaction. A live worker's events spread over its partitions, one or
 * two to each between wake-ups; a batch per partition made each wake-up cost
 * a transaction and five round trips per partition with an event, and the
 * last partition of a wake-up waited for all the others (measured with 16
 * partitions at 500 appends/s: 4–6 batches and 12–18 ms per wake-up, against
 * one batch and 4 ms with one partition). A pass costs the round trips of one
 * batch, however many partitions it covers.
 *
 * It is only a faster way to the same writes: each partition's batch reads,
 * folds and writes what `projectPartitionBatch` would, fenced on the same
 * claim, checkpoint and skips, with the batch size shared among the
 * partitions. On anything else than the plain case it writes nothing: a
 * claim found lost (at the read or at the lock) is named, and the worker
 * looks into it as after a lost batch; an event skipped since it was read,
 * or a database error, leaves the partitions to their batches, one by one,
 * which find out which and why. Reactors and tracing keep the batch per
 * partition (their effects, timers and spans are per batch), and so does a
 * backlog (the worker's choice: see `#catchUpLoop`).
 */
import type { ProjectionState } from '../../core/projections/projection-state.js';
import type { LogRecord } from '../../engine/event-log.js';
import { type EventRow, partitionEventsSql, recordOfRow } from '../log/event-rows.js';
import { isRetryableCause, sqlState } from '../postgres-error.js';
import type { SchemaName } from '../schema-name.js';
import { sendPrepared } from '../sql/send.js';
import { type Sql, sql } from '../sql/sql.js';
import type { SqlPool } from '../sql-client.js';
import { loadRecordsOfEach, type TemplateRows } from '../tables/projection-tables.js';
import { keysOf } from './batch-keys.js';
import { type PassPart, writeFencedPass } from './batch-write.js';
import { foldedWrites } from './folded-writes.js';
import type { BatchContext } from './partition-batch.js';
import { templateRowsOf } from './partition-templates.js';

/** A partition of the pass and the claim it is held under. */
export interface PassClaim {
  readonly partition: number;
  readonly epoch: number;
}

/**
 * What a pass did: `projected` (every partition's batch written); or `lost`,
 * nothing written, when it found claims of `partitions` no longer held as
 * claimed (the worker looks into each, as after a batch that found its claim lost).
 */
export type PassOutcome =
  | {
      readonly kind: 'projected';
      /** Records counted (template events only in partition 0), all partitions together. */
      readonly processed: number;
      /** The partitions with nothing left to read up to the newest event seen. */
      readonly caughtUp: ReadonlySet<number>;
    }
  | { readonly kind: 'lost'; readonly partitions: readonly number[] };

/** A row of {@link selectPassSql}: a partition's row, and one event read or none. */
type PassRow = {
  readonly claimed: number;
  readonly checkpoint: string;
  readonly owner: string | null;
  readonly epoch: string;
  readonly high: string | null;
} & ((EventRow & { readonly partition: number }) | { readonly position: null });

type PassEventRow = PassRow & EventRow & { readonly partition: number };

const isEventRow = (row: PassRow): row is PassEventRow => row.position !== null;

/**
 * The row of each claimed partition (its checkpoint and claim, and the newest
 * position of all, the same for every partition: one snapshot) and, while
 * the worker holds it under the epoch given, its next `$limit` events up to
 * that newest position.
 */
const selectPassSql = (
  schema: SchemaName,
  workerId: string,
  claims: readonly PassClaim[],
  limit: number,
): Sql =>
  sql`SELECT c.partition AS claimed, p.position AS checkpoint, p.owner, p.epoch, h.high, e.*
     FROM unnest(${claims.map((c) => c.partition)}::integer[],
                 ${claims.map((c) => c.epoch)}::bigint[]) AS c(partition, epoch)
     CROSS JOIN (SELECT max(position) AS high FROM ${sql.id(schema, 'events')}) AS h
     JOIN ${sql.id(schema, 'partitions')} AS p ON p.partition = c.partition
     LEFT JOIN LATERAL (${partitionEventsSql(schema, {
       partition: sql`c.partition`,
       after: sql`p.position`,
       upTo: sql`h.high`,
       limit,
     })}) AS e ON p.owner = ${workerId} AND p.epoch = c.epoch
    ORDER BY c.partition, e.position`;

/** One partition's part of the pass, read and not yet folded. */
interface PassRead {
  readonly partition: number;
  readonly epoch: number;
  readonly from: number;
  readonly to: number;
  readonly caughtUp: boolean;
  readonly rows: readonly PassEventRow[];
}

/**
 * Each claim's part of the pass from the rows read, or the partitions whose
 * claim is no longer held as claimed.
 */
const readParts = (
  rows: readonly PassRow[],
  claims: readonly PassClaim[],
  workerId: string,
  limit: number,
): PassRead[] | { readonly lost: number[] } => {
  const parts: PassRead[] = [];
  const lost: number[] = [];
  for (const { partition, epoch } of claims) {
    const mine = rows.filter((row) => row.claimed === partition);
    const head = mine[0];
    if (head === undefined || head.owner !== workerId || Number(head.epoch) !== epoch) {
      lost.push(partition);
      continue;
    }
    const from = Number(head.checkpoint);
    const high = Number(head.high ?? 0);
    const events = mine.filter(isEventRow);
    const caughtUp = events.length < limit;
    const to = caughtUp ? Math.max(from, high) : Number(events.at(-1)?.position);
    parts.push({ partition, epoch, from, to, caughtUp, rows: events });
  }
  return lost.length > 0 ? { lost } : parts;
};

/** A part of the pass folded: what it writes, and the records it counts. */
interface FoldedPart {
  readonly write: PassPart;
  readonly processed: number;
}

/** Folds `part`'s records onto `before` as its batch would, and what its batch would write. */
const foldPart = async (
  context: BatchContext,
  part: PassRead,
  records: readonly LogRecord[],
  before: ProjectionState,
  templateRows: TemplateRows,
): Promise<FoldedPart> => {
  const { schema, workerId, leaseMs, strict } = context;
  const { partition, epoch, from, to, caughtUp, rows } = part;
  const upcasters = context.upcasters ?? [];
  const fold = { partition, from, records, before, strict, upcasters };
  const { processed, ...batch } = foldedWrites(schema, fold, rows, templateRows, to);
  await context.onFolded?.(partition);
  return {
    write: {
      fence: { schema, workerId, leaseMs, partition, epoch, from, to, caughtUp },
      batch: { ...batch, lock: true },
    },
    processed,
  };
};

/**
 * Projects one pass over `claims` (partitions this worker holds, with work).
 * Resolves with what it did, or `undefined` when it wrote nothing and the
 * partitions are to be projected one by one (see the file comment): a
 * database error is an `undefined` too, met again by the batch of its
 * partition, which names it.
 */
export const projectPass = async (
  pool: SqlPool,
  context: BatchContext,
  claims: readonly PassClaim[],
): Promise<PassOutcome | undefined> => {
  const { schema, workerId } = context;
  // The batch size is shared: a pass writes no more than one batch would.
  const limit = Math.max(1, Math.floor(context.batchSize / claims.length));
  try {
    const read = await sendPrepared<PassRow>(pool, selectPassSql(schema, workerId, claims, limit));
    const parts = readParts(read.rows, claims, workerId, limit);
    if ('lost' in parts) return { kind: 'lost', partitions: parts.lost };
    const working = parts.filter((part) => part.to > part.from);
    const loads = working.map((part) => {
      const records = part.rows.map(recordOfRow);
      return { records, keys: keysOf(records), templateRows: templateRowsOf(part.partition) };
    });
    const befores = await loadRecordsOfEach(pool, schema, loads);
    const folded: FoldedPart[] = [];
    for (const [i, part] of working.entries()) {
      const { records, templateRows } = loads[i] as (typeof loads)[number];
      const before = befores[i] as ProjectionState; // one state for each load, in order
      folded.push(await foldPart(context, part, records, before, templateRows));
    }
    const writes = folded.map((each) => each.write);
    const written = await writeFencedPass(pool, writes);
    if (written.kind === 'unheld') return { kind: 'lost', partitions: written.partitions };
    if (written.kind === 'unmoved') return undefined;
    for (const each of folded) context.onProjected?.(each.write.batch.stats);
    return {
      kind: 'projected',
      processed: folded.reduce((sum, each) => sum + each.processed, 0),
      caughtUp: new Set(parts.filter((part) => part.caughtUp).map((part) => part.partition)),
    };
  } catch (cause) {
    // The database's refusal or a lost connection: the batches of the partitions will say
    // which event or what; anything else is a fault of this code, not to be hidden.
    if (sqlState(cause) === undefined && !isRetryableCause(cause)) throw cause;
    return undefined;
  }
};
