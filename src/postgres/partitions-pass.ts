/**
 * A following worker's pass over every held partition with new events, in
 * one transaction.
 *
 * A steady trickle of appends puts each event in a different partition, so
 * projecting them batch by batch costs a transaction and about nine round
 * trips per event, however small each batch is. A pass reads the new events
 * of all those partitions in one query, loads their records in at most four,
 * folds each partition on its own (partition-fold.ts, exactly as its batch
 * would) and writes every table once and every checkpoint in one statement.
 *
 * It is an optimisation with the batch as its fallback: whenever anything is
 * unusual (a claim lost or fenced since, a skip, two partitions naming one
 * record, more events than a batch, a refusal by the database) it writes
 * nothing and says so, and the worker takes those partitions batch by batch,
 * which handle and report every such case. Its fence is the batch's, for
 * each partition at once: the rows are locked with owner, epoch, checkpoint
 * and a live lease before anything is written, and the checkpoints move
 * under the same conditions and only if no event read was skipped since.
 */
import type {
  ParticipantView,
  SignRequestView,
  TemplateView,
} from '../core/projections/records.js';
import type { LogRecord } from '../engine/event-log.js';
import type { QuarantineEntry } from '../engine/quarantine.js';
import type { BatchContext } from './batch-context.js';
import { keysOf } from './batch-keys.js';
import { recordOfRow, selectPartitionsEventsSql } from './event-rows.js';
import { EVERY_PARTITION } from './migration-partitions.js';
import { beginBatchSql } from './partition-batch.js';
import { foldPartition, type PartitionEventRow, type PartitionFold } from './partition-fold.js';
import { type Claims, leaseEnd } from './partition-leases.js';
import { loadTemplatesOfPartitions, writeTemplatesOfPartitions } from './partition-templates.js';
import type { PartitionsBehind } from './partitions-with-work.js';
import { PARTICIPANTS, SIGN_REQUESTS } from './projection-columns.js';
import {
  type Changes,
  changesOf,
  type RecordKeys,
  select,
  toState,
  writeRequestChanges,
} from './projection-tables.js';
import { writeQuarantine } from './quarantine-table.js';
import { checkOut, prepared, rollBack, type SqlPool, type SqlPoolClient } from './sql-client.js';

/** What a pass did. */
export type PassOutcome =
  /** Every partition of the pass is at the newest position; `processed` records were counted. */
  | { readonly kind: 'projected'; readonly processed: number }
  /** Nothing was written: the partitions are to be projected batch by batch. */
  | { readonly kind: 'declined' };

const DECLINED: PassOutcome = { kind: 'declined' };

/** One partition of a pass: its claim, where it starts, and what it reads. */
interface PassPartition {
  readonly partition: number;
  readonly epoch: number;
  readonly from: number;
  readonly rows: PartitionEventRow[];
  readonly records: LogRecord[];
}

/**
 * Whether a worker's partitions can be projected in passes: batches alone
 * enqueue reactors' effects and trace each batch in a span of its own.
 */
export const passesApply = (context: BatchContext): boolean =>
  (context.reactors === undefined || context.reactors.length === 0) &&
  context.tracing === undefined;

/**
 * Projects every partition `found` names (those `claims` holds) up to its
 * newest position in one transaction, or writes nothing and declines (see
 * the file's comment). Throws nothing a batch would not report itself: a
 * failure declines, and the batches meet it again.
 */
export const projectPartitionsTogether = async (
  pool: SqlPool,
  context: BatchContext,
  claims: Claims,
  found: PartitionsBehind,
): Promise<PassOutcome> => {
  const pass: PassPartition[] = [];
  for (const [partition, from] of found.behind) {
    const epoch = claims.get(partition);
    if (epoch === undefined) return DECLINED;
    pass.push({ partition, epoch, from, rows: [], records: [] });
  }
  if (pass.length < 2 || !passesApply(context)) return DECLINED;
  let client: SqlPoolClient | undefined;
  let folds: PartitionFold[] | undefined;
  try {
    if (!(await readPass(pool, context, pass, found.high))) return DECLINED;
    folds = await foldPass(pool, context, pass);
    if (folds === undefined) return DECLINED;
    client = await checkOut(pool);
    const committed = await writePass(client, context, pass, folds, found.high);
    client.release();
    client = undefined;
    if (!committed) return DECLINED;
  } catch (cause) {
    if (client !== undefined) client.release(await rollBack(client, cause));
    return DECLINED;
  }
  let processed = 0;
  for (const fold of folds) {
    context.onProjected?.(fold.stats);
    processed += fold.processed;
  }
  return { kind: 'projected', processed };
};

/**
 * Reads each partition's events after its checkpoint up to `high`, with the
 * template events it folds; `false` when that is more than one batch holds.
 */
const readPass = async (
  pool: SqlPool,
  context: BatchContext,
  pass: PassPartition[],
  high: number,
): Promise<boolean> => {
  const { rows } = await pool.query<PartitionEventRow>(
    prepared(selectPartitionsEventsSql(context.schema), [
      pass.map((p) => p.partition),
      pass.map((p) => p.from),
      high,
      context.batchSize,
      Math.min(...pass.map((p) => p.from)),
    ]),
  );
  const byPartition = new Map(pass.map((p) => [p.partition, p]));
  let total = 0;
  for (const row of rows) {
    const record = recordOfRow(row);
    const position = Number(row.position);
    const readers =
      row.partition === EVERY_PARTITION
        ? pass.filter((p) => p.from < position)
        : [byPartition.get(row.partition) ?? []].flat();
    for (const p of readers) {
      p.rows.push(row);
      p.records.push(record);
    }
    total += readers.length;
  }
  // Each partition's read and the template events' are limited to a batch, and each counts in
  // `total`: below a batch in all, none reached its limit, so every partition read up to `high`.
  return total < context.batchSize;
};

/**
 * Loads the records each partition's events name (at most four queries in
 * all) and folds each partition; `undefined` when two partitions name one
 * sign request, whose row would then be written twice from one state.
 */
const foldPass = async (
  pool: SqlPool,
  context: BatchContext,
  pass: readonly PassPartition[],
): Promise<PartitionFold[] | undefined> => {
  const keys = new Map<number, RecordKeys>();
  const signRequests = new Set<number>();
  const participantsOf = new Set<number>();
  for (const p of pass) {
    const named = keysOf(p.records);
    for (const id of named.signRequests) {
      if (signRequests.has(id)) return undefined;
      signRequests.add(id);
    }
    for (const id of named.participantsOf) participantsOf.add(id);
    keys.set(p.partition, named);
  }
  const { schema } = context;
  const [templates, requests, participants] = await Promise.all([
    loadTemplatesOfPartitions(
      pool,
      schema,
      new Map(pass.map((p) => [p.partition, [...(keys.get(p.partition)?.templates ?? [])]])),
    ),
    signRequests.size === 0
      ? ([] as SignRequestView[])
      : select(pool, SIGN_REQUESTS, schema, 'WHERE id = ANY($1::bigint[])', [[...signRequests]]),
    participantsOf.size === 0
      ? ([] as ParticipantView[])
      : select(pool, PARTICIPANTS, schema, 'WHERE sign_request_id = ANY($1::bigint[])', [
          [...participantsOf],
        ]),
  ]);
  const folds: PartitionFold[] = [];
  for (const p of pass) {
    const named = keys.get(p.partition);
    const before = toState(
      templates.get(p.partition) ?? [],
      requests.filter((r) => named?.signRequests.has(r.id) === true),
      participants.filter((x) => named?.participantsOf.has(x.signRequestId) === true),
    );
    folds.push(foldPartition(context, p.partition, p.from, p.rows, p.records, before));
    await context.onFolded?.(p.partition);
  }
  return folds;
};

/**
 * Writes the pass in one transaction fenced as a batch is, each partition
 * moving to `high`; `false` (rolled back) when a claim was lost or an event
 * read was skipped meanwhile.
 */
const writePass = async (
  client: SqlPoolClient,
  context: BatchContext,
  pass: readonly PassPartition[],
  folds: readonly PartitionFold[],
  high: number,
): Promise<boolean> => {
  const { schema, workerId } = context;
  const partitions = pass.map((p) => p.partition);
  const epochs = pass.map((p) => p.epoch);
  const froms = pass.map((p) => p.from);
  await client.query(beginBatchSql(context.leaseMs));
  const held = await client.query(
    prepared(
      `SELECT p.partition FROM ${schema}.partitions AS p
       JOIN unnest($2::integer[], $3::bigint[], $4::bigint[]) AS u(partition, epoch, after)
         ON p.partition = u.partition AND p.epoch = u.epoch AND p.position = u.after
      WHERE p.owner = $1 AND p.lease_until > clock_timestamp()
      ORDER BY p.partition FOR UPDATE OF p`,
      [workerId, partitions, epochs, froms],
    ),
  );
  if (held.rowCount !== pass.length) {
    await client.query('ROLLBACK');
    return false;
  }
  // Sign requests and participants are gathered over the pass; templates stay per partition.
  const signRequests: Changes<SignRequestView> = { created: [], updated: [] };
  const participants: Changes<ParticipantView> = { created: [], updated: [] };
  const templates = new Map<number, Changes<TemplateView>>();
  const quarantine: QuarantineEntry[] = [];
  folds.forEach((fold, i) => {
    const own: Changes<TemplateView> = { created: [], updated: [] };
    changesOf(fold.before, fold.after, { templates: own, signRequests, participants });
    templates.set(partitions[i] ?? 0, own);
    quarantine.push(...fold.quarantine);
  });
  await writeTemplatesOfPartitions(client, schema, templates);
  await writeRequestChanges(client, schema, { signRequests, participants });
  await writeQuarantine(client, schema, quarantine);
  const stat = (pick: (fold: PartitionFold) => number): number[] => folds.map(pick);
  const fenced = await client.query(
    prepared(
      `UPDATE ${schema}.partitions AS p
        SET position = $3, applied = p.applied + u.applied, no_ops = p.no_ops + u.no_ops,
            conflicts = p.conflicts + u.conflicts, invalid = p.invalid + u.invalid,
            already_applied = p.already_applied + u.already_applied,
            updated_at = clock_timestamp(), lease_until = ${leaseEnd('$2')}
       FROM unnest($4::integer[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[],
                   $9::bigint[], $10::bigint[], $11::bigint[])
            AS u(partition, epoch, after, applied, no_ops, conflicts, invalid, already_applied)
      WHERE p.partition = u.partition AND p.owner = $1 AND p.epoch = u.epoch
        AND p.position = u.after AND p.lease_until > clock_timestamp()
        AND NOT EXISTS (SELECT 1 FROM ${schema}.skipped WHERE position = ANY($12::bigint[]))`,
      [
        workerId,
        context.leaseMs,
        high,
        partitions,
        epochs,
        froms,
        stat((f) => f.stats.applied),
        stat((f) => f.stats.noOps),
        stat((f) => f.stats.conflicts),
        stat((f) => f.stats.invalid),
        stat((f) => f.stats.alreadyApplied),
        // Skipped since they were read: the partition rows' locks make a skip committed since visible here.
        [
          ...new Set(
            pass.flatMap((p) =>
              p.rows.filter((row) => row.skipped === null).map((r) => r.position),
            ),
          ),
        ],
      ],
    ),
  );
  if (fenced.rowCount !== pass.length) {
    await client.query('ROLLBACK');
    return false;
  }
  await client.query('COMMIT');
  return true;
};
