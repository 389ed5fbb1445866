/**
 * Reactors inside a partition batch. While the batch folds, each applied
 * change is planned (`reactInto`); once the batch holds its partition's
 * lock, the plans of the positions past each reactor's own checkpoint are
 * applied to a `ReactorEffects` holding the partition's scheduled timers
 * that they can cancel, SQL effects run, a batch that caught up releases the
 * timers due by the wall clock, and the changed effects and the reactors' checkpoints are
 * written, all in the batch's transaction: enqueueing is exactly once and
 * the partition's lease fences it.
 */
import {
  type PlanTarget,
  type ReactionPlan,
  reactInto,
} from '../../core/reactors/plan-reaction.js';
import { ReactorEffects } from '../../core/reactors/reactor-effects.js';
import type { Change, Reactor } from '../../core/reactors/reactor-types.js';
import type { SchemaName } from '../schema-name.js';
import type { SqlQueryable } from '../sql-client.js';
import { EFFECT_COLUMNS, type EffectRow, entryOfRow } from './effect-rows.js';
import { EFFECTS_CHANNEL } from './migration-reactors.js';

/** Where a batch's reactions go. */
export interface ReactorBatchTarget {
  readonly schema: SchemaName;
  readonly partition: number;
  readonly reactors: readonly Reactor[];
  /**
   * Redo mode: only the plans at these positions, by reactor, are written
   * (positions each reactor has passed, applied only since `pg rebuild
   * --switch`), and no reactor's checkpoint moves.
   */
  readonly redo?: ReadonlyMap<string, ReadonlySet<number>>;
}

/** Plans collected while a batch folds; see the module comment. */
export class ReactorBatch {
  readonly #target: ReactorBatchTarget;
  /** The plans with steps, in log order (a reaction without steps changes nothing). */
  readonly #plans: ReactionPlan[] = [];
  readonly #collector: PlanTarget = { applyPlan: (plan) => this.#plans.push(plan) };

  constructor(target: ReactorBatchTarget) {
    this.#target = target;
  }

  /** The projector's `onApplied`: template events are reacted to by partition 0 only. */
  readonly onApplied = (change: Change): void => {
    if (!('signRequestId' in change.event) && this.#target.partition !== 0) return;
    for (const reactor of this.#target.reactors) reactInto(this.#collector, reactor, change);
  };

  /**
   * Writes the reactions in `db`'s transaction, which must hold the
   * partition's lock. The batch covers (`from`, `to`]; a reactor whose
   * checkpoint lies before `from` is behind (new, catching up) and is left
   * to the catch-up, untouched. `clockMs` is set when the batch caught up
   * with every stored event: the partition's timers due by then are
   * released (never before: a timer stays cancellable until its partition
   * has read everything stored, see `ReactorEffects`).
   */
  async write(
    db: SqlQueryable,
    { from, to, clockMs }: { from: number; to: number; clockMs: number | undefined },
  ): Promise<void> {
    const { schema, partition, reactors } = this.#target;
    const progress = await db.query<{
      reactor: string;
      position: string;
      watermark_ms: string | null;
    }>(
      `SELECT reactor, position, watermark_ms FROM ${schema}.reactor_progress
        WHERE partition = $1 AND reactor = ANY($2::text[]) FOR UPDATE`,
      [partition, reactors.map((reactor) => reactor.name)],
    );
    const positions = new Map(progress.rows.map((row) => [row.reactor, Number(row.position)]));
    const { redo } = this.#target;
    // No row: a reactor that starts with the log (nothing stored before it was added).
    const names = reactors
      .map((reactor) => reactor.name)
      .filter((name) => (redo === undefined ? (positions.get(name) ?? 0) >= from : redo.has(name)));
    const watermarks: Record<string, number> = {};
    for (const row of progress.rows)
      if (row.watermark_ms !== null) watermarks[row.reactor] = Number(row.watermark_ms);
    const reacting = new Set(names);
    const plans = this.#plans.filter(
      (plan) =>
        reacting.has(plan.reactor) &&
        (redo === undefined
          ? plan.position > (positions.get(plan.reactor) ?? 0)
          : redo.get(plan.reactor)?.has(plan.position) === true),
    );
    // Only the scheduled timers these plans can reach are read: those of the keys (and key
    // prefixes) they cancel or replace. The others wait in the table, however many a long
    // catch-up leaves there.
    const keys = new Set<string>();
    const prefixes = new Set<string>();
    for (const plan of plans) {
      for (const step of plan.steps) {
        if (step.kind === 'cancel') keys.add(step.key);
        if (step.kind === 'cancel-prefix') prefixes.add(step.prefix);
      }
    }
    const scheduled =
      keys.size === 0 && prefixes.size === 0
        ? []
        : (
            await db.query<EffectRow>(
              `SELECT ${EFFECT_COLUMNS} FROM ${schema}.effects
                WHERE partition = $1 AND reactor = ANY($2::text[]) AND state = 'scheduled'
                  AND (key = ANY($3::text[])
                       OR EXISTS (SELECT 1 FROM unnest($4::text[]) AS p(prefix)
                                   WHERE starts_with(key, p.prefix)))`,
              [partition, names, [...keys], [...prefixes]],
            )
          ).rows;
    const entries = scheduled.map(entryOfRow);
    const stored = new Set(entries.map((entry) => entry.id));
    // Ids of the book's new entries only tell them from the stored ones; the table numbers them.
    const firstNew = entries.reduce((high, entry) => Math.max(high, entry.id), 0) + 1;
    const book = ReactorEffects.restore({ entries, watermarks, nextId: firstNew });
    const sqlDone: {
      plan: ReactionPlan;
      index: number;
      idempotencyKey: string;
      effect: unknown;
    }[] = [];
    for (const plan of plans) {
      const steps = plan.steps.filter((step) => step.kind !== 'enqueue' || step.sql === undefined);
      book.applyPlan({ ...plan, steps });
      for (const step of plan.steps) {
        if (step.kind !== 'enqueue' || step.sql === undefined) continue;
        await db.query(step.sql.text, step.sql.values === undefined ? [] : [...step.sql.values]);
        sqlDone.push({
          plan,
          index: step.index,
          idempotencyKey: step.idempotencyKey,
          effect: step.effect,
        });
      }
    }
    if (clockMs !== undefined) for (const name of names) book.release(name, clockMs);
    const changed = book.takeChanged();
    const updated = changed.filter((entry) => stored.has(entry.id));
    const inserted = changed.filter((entry) => !stored.has(entry.id));
    if (updated.length > 0) {
      await db.query(
        `UPDATE ${schema}.effects AS e SET state = u.state, updated_at = clock_timestamp()
           FROM unnest($1::bigint[], $2::text[]) AS u(id, state)
          WHERE e.id = u.id AND e.state = 'scheduled'`,
        [updated.map((entry) => entry.id), updated.map((entry) => entry.state)],
      );
    }
    const rows = [
      ...inserted.map((entry) => ({ ...entry, partition })),
      ...sqlDone.map(({ plan, index, idempotencyKey, effect }) => ({
        reactor: plan.reactor,
        partition,
        position: plan.position,
        index,
        idempotencyKey,
        key: undefined,
        effect,
        dueAt: undefined,
        state: 'done' as const,
        attempts: 1,
        lastError: '',
        invalid: false,
      })),
    ];
    if (rows.length > 0) {
      await db.query(
        `INSERT INTO ${schema}.effects
           (reactor, partition, position, index, idempotency_key, key, effect, state, due_ms, attempts, last_error, invalid)
         SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[], $4::int[], $5::text[], $6::text[],
                              $7::json[], $8::text[], $9::bigint[], $10::int[], $11::text[], $12::boolean[])`,
        [
          rows.map((r) => r.reactor),
          rows.map((r) => r.partition),
          rows.map((r) => r.position),
          rows.map((r) => r.index),
          rows.map((r) => r.idempotencyKey),
          rows.map((r) => r.key ?? null),
          rows.map((r) => (r.effect === null ? null : JSON.stringify(r.effect))),
          rows.map((r) => r.state),
          rows.map((r) => r.dueAt ?? null),
          rows.map((r) => r.attempts),
          rows.map((r) => r.lastError),
          rows.map((r) => r.invalid),
        ],
      );
    }
    // The scheduled timers the book did not read, released in the table itself.
    const released =
      clockMs === undefined || names.length === 0
        ? 0
        : ((
            await db.query(
              `UPDATE ${schema}.effects SET state = 'ready', updated_at = clock_timestamp()
                WHERE partition = $1 AND reactor = ANY($2::text[]) AND state = 'scheduled'
                  AND due_ms <= $3`,
              [partition, names, clockMs],
            )
          ).rowCount ?? 0);
    const marks = book.watermarks();
    if (redo === undefined) {
      await db.query(
        `INSERT INTO ${schema}.reactor_progress (reactor, partition, position, watermark_ms)
       SELECT r, $2, $3, w FROM unnest($1::text[], $4::bigint[]) AS u(r, w)
       ON CONFLICT (reactor, partition) DO UPDATE
         SET position = greatest(${schema}.reactor_progress.position, excluded.position),
             watermark_ms = greatest(${schema}.reactor_progress.watermark_ms, excluded.watermark_ms),
             updated_at = clock_timestamp()`,
        [names, partition, to, names.map((name) => marks[name] ?? null)],
      );
    }
    if (released > 0 || changed.some((entry) => entry.state === 'ready')) {
      await db.query('SELECT pg_notify($1, $2)', [EFFECTS_CHANNEL, schema]);
    }
  }
}
