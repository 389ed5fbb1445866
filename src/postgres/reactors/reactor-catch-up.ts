/**
 * A reactor behind its partition's checkpoint (added to a schema that is
 * already projected) catches up before the partition's next batch: the
 * partition's events up to the checkpoint are folded again in memory, from
 * an empty state, only to give `react` the views before and after each
 * event; the projection tables are not touched. Its reactions are written
 * like a batch's, in one transaction under the partition's lock, and release
 * nothing: the partition's next batch that catches up does, so every cancel
 * stored in the history has been read by then. Once per claim.
 *
 * The same fold serves the partition's rows of `reactor_redo` (events that
 * `pg rebuild --switch` made applicable at positions a reactor had passed):
 * only the changes at those positions are handed to the reactors, and the
 * rows are deleted in the transaction that writes the effects, so each is
 * reacted to once, even if the worker dies midway (then nothing was written
 * and the next claim does it all again).
 */

import type { Reactor } from '../../core/reactors/reactor-types.js';
import type { Upcaster } from '../../core/upcasters/upcaster-types.js';
import { createProjector } from '../../engine/projector.js';
import { type EventRow, partitionEventsSql, recordOfRow } from '../log/event-rows.js';
import type { SchemaName } from '../schema-name.js';
import { send } from '../sql/send.js';
import { sql } from '../sql/sql.js';
import { checkOut, rollBack, type SqlPool } from '../sql-client.js';
import { ReactorBatch } from './reactor-batch.js';

/** What a catch-up needs. */
export interface CatchUpContext {
  readonly schema: SchemaName;
  readonly workerId: string;
  readonly strict: boolean;
  /** Applied to each record before it is decoded, as the batches apply them. */
  readonly upcasters?: readonly Upcaster[];
  readonly reactors?: readonly Reactor[] | undefined;
}

/** The redo positions of `partition` up to `to`, by reactor (of these reactors only). */
const redoOf = async (
  pool: SqlPool,
  schema: SchemaName,
  partition: number,
  reactors: readonly Reactor[],
  to: number,
): Promise<Map<string, Set<number>>> => {
  const { rows } = await send<{ reactor: string; position: string }>(
    pool,
    sql`SELECT reactor, position FROM ${sql.id(schema, 'reactor_redo')}
         WHERE partition = ${partition}
           AND reactor = ANY(${reactors.map((reactor) => reactor.name)}::text[])
           AND position <= ${to}`,
  );
  const redo = new Map<string, Set<number>>();
  for (const row of rows) {
    const positions = redo.get(row.reactor) ?? new Set<number>();
    positions.add(Number(row.position));
    redo.set(row.reactor, positions);
  }
  return redo;
};

const redoSize = (redo: ReadonlyMap<string, ReadonlySet<number>>): number =>
  [...redo.values()].reduce((n, positions) => n + positions.size, 0);

/** The reactors and positions of `redo`'s rows, one array each. */
const redoColumns = (redo: ReadonlyMap<string, ReadonlySet<number>>): [string[], number[]] => {
  const reactorColumn: string[] = [];
  const positionColumn: number[] = [];
  for (const [reactor, positions] of redo) {
    for (const position of positions) {
      reactorColumn.push(reactor);
      positionColumn.push(position);
    }
  }
  return [reactorColumn, positionColumn];
};

const PAGE = 10_000;
const caughtUpClaims = new WeakMap<CatchUpContext, Set<string>>();

/**
 * Catches up the reactors of `partition` that are behind its checkpoint, once
 * per claim (`epoch`). Resolves to `false` when the partition turned out not
 * to be this worker's any more (nothing written).
 */
export const catchUpReactorsOnce = async (
  pool: SqlPool,
  context: CatchUpContext,
  partition: number,
  epoch: number,
): Promise<boolean> => {
  const done = caughtUpClaims.get(context) ?? new Set<string>();
  caughtUpClaims.set(context, done);
  const claim = `${partition}:${epoch}`;
  if (done.has(claim)) return true;
  const { schema, workerId } = context;
  const reactors = context.reactors ?? [];
  const found = await send<{ position: string }>(
    pool,
    sql`SELECT position FROM ${sql.id(schema, 'partitions')}
         WHERE partition = ${partition} AND owner = ${workerId} AND epoch = ${epoch}`,
  );
  const checkpoint = found.rows[0]?.position;
  if (checkpoint === undefined) return false;
  const to = Number(checkpoint);
  const progress = await send<{ reactor: string; position: string }>(
    pool,
    sql`SELECT reactor, position FROM ${sql.id(schema, 'reactor_progress')} WHERE partition = ${partition}`,
  );
  const positions = new Map(progress.rows.map((row) => [row.reactor, Number(row.position)]));
  const behind = reactors.filter((reactor) => (positions.get(reactor.name) ?? 0) < to);
  const redo = await redoOf(pool, schema, partition, reactors, to);
  if (behind.length > 0 || redo.size > 0) {
    const batch = new ReactorBatch({ schema, partition, reactors: behind });
    const again = new ReactorBatch({ schema, partition, reactors, redo });
    const projector = createProjector({
      policy: 'skip',
      audit: false,
      strict: context.strict,
      upcasters: context.upcasters ?? [],
      onApplied: (change) => {
        batch.onApplied(change);
        if (redo.size > 0) again.onApplied(change);
      },
    });
    for (let after = 0; after < to; ) {
      const read = partitionEventsSql(schema, { partition, after, upTo: to, limit: PAGE });
      const page = await pool.query<EventRow & { partition: number }>(read.text, read.values);
      for (const row of page.rows) projector.applyRecord(recordOfRow(row));
      if (page.rows.length < PAGE) break;
      after = Number(page.rows.at(-1)?.position);
    }
    const client = await checkOut(pool);
    let broken: Error | true | undefined;
    try {
      await client.query('BEGIN');
      const held = await send(
        client,
        sql`SELECT 1 FROM ${sql.id(schema, 'partitions')}
             WHERE partition = ${partition} AND owner = ${workerId} AND epoch = ${epoch}
               AND position = ${to} AND lease_until > clock_timestamp() FOR UPDATE`,
      );
      if (held.rowCount !== 1) {
        await client.query('ROLLBACK');
        return false;
      }
      if (behind.length > 0) await batch.write(client, { from: 0, to, clockMs: undefined });
      if (redo.size > 0) {
        // Under the partition's lock, another claim's catch-up cannot have taken these rows:
        // a row already gone means this fold must not write them again.
        const [reactorColumn, positionColumn] = redoColumns(redo);
        const taken = await send(
          client,
          sql`DELETE FROM ${sql.id(schema, 'reactor_redo')} AS r
               USING unnest(${reactorColumn}::text[], ${positionColumn}::bigint[]) AS u(reactor, position)
               WHERE r.partition = ${partition} AND r.reactor = u.reactor AND r.position = u.position`,
        );
        if (taken.rowCount !== redoSize(redo)) {
          await client.query('ROLLBACK');
          return false;
        }
        await again.write(client, { from: 0, to, clockMs: undefined });
      }
      await client.query('COMMIT');
    } catch (cause) {
      broken = await rollBack(client, cause);
      throw cause;
    } finally {
      client.release(broken);
    }
  }
  done.add(claim);
  return true;
};
