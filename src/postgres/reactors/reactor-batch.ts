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
import { type EffectEntry, ReactorEffects } from '../../core/reactors/reactor-effects.js';
import type { Change, Reactor } from '../../core/reactors/reactor-types.js';
import type { SchemaName } from '../schema-name.js';
import { send } from '../sql/send.js';
import { type Sql, sql } from '../sql/sql.js';
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
    const { names, positions, watermarks } = await this.#progress(db, from);
    const plans = this.#plansOf(names, positions);
    const entries = (await this.#scheduledTimers(db, names, plans)).map(entryOfRow);
    const stored = new Set(entries.map((entry) => entry.id));
    // Ids of the book's new entries only tell them from the stored ones; the table numbers them.
    const firstNew = entries.reduce((high, entry) => Math.max(high, entry.id), 0) + 1;
    const book = ReactorEffects.restore({ entries, watermarks, nextId: firstNew });
    const sqlDone = await applyPlans(db, book, plans);
    if (clockMs !== undefined) for (const name of names) book.release(name, clockMs);
    const changed = book.takeChanged();
    await this.#writeEffects(db, {
      updated: changed.filter((entry) => stored.has(entry.id)),
      inserted: changed.filter((entry) => !stored.has(entry.id)),
      sqlDone,
    });
    const released = clockMs === undefined ? 0 : await this.#releaseDue(db, names, clockMs);
    if (this.#target.redo === undefined)
      await this.#moveCheckpoints(db, names, to, book.watermarks());
    if (released > 0 || changed.some((entry) => entry.state === 'ready')) {
      await send(db, sql`SELECT pg_notify(${EFFECTS_CHANNEL}, ${this.#target.schema})`);
    }
  }

  /**
   * The reactors' checkpoints in the partition (locked), and the reactors
   * that react in this batch: those not behind `from` (in redo mode, those
   * with positions to redo).
   */
  async #progress(db: SqlQueryable, from: number): Promise<ReactorProgress> {
    const { schema, partition, reactors, redo } = this.#target;
    const progress = await send<{ reactor: string; position: string; watermark_ms: string | null }>(
      db,
      sql`SELECT reactor, position, watermark_ms FROM ${sql.id(schema, 'reactor_progress')}
           WHERE partition = ${partition}
             AND reactor = ANY(${reactors.map((reactor) => reactor.name)}::text[]) FOR UPDATE`,
    );
    const positions = new Map(progress.rows.map((row) => [row.reactor, Number(row.position)]));
    // No row: a reactor that starts with the log (nothing stored before it was added).
    const names = reactors
      .map((reactor) => reactor.name)
      .filter((name) => (redo === undefined ? (positions.get(name) ?? 0) >= from : redo.has(name)));
    const watermarks: Record<string, number> = {};
    for (const row of progress.rows)
      if (row.watermark_ms !== null) watermarks[row.reactor] = Number(row.watermark_ms);
    return { names, positions, watermarks };
  }

  /** The plans to write: of the reacting reactors, past their checkpoints (in redo mode, at the positions to redo). */
  #plansOf(names: readonly string[], positions: ReadonlyMap<string, number>): ReactionPlan[] {
    const { redo } = this.#target;
    const reacting = new Set(names);
    return this.#plans.filter(
      (plan) =>
        reacting.has(plan.reactor) &&
        (redo === undefined
          ? plan.position > (positions.get(plan.reactor) ?? 0)
          : redo.get(plan.reactor)?.has(plan.position) === true),
    );
  }

  /**
   * Only the scheduled timers these plans can reach are read: those of the keys (and key
   * prefixes) they cancel or replace. The others wait in the table, however many a long
   * catch-up leaves there.
   */
  async #scheduledTimers(
    db: SqlQueryable,
    names: readonly string[],
    plans: readonly ReactionPlan[],
  ): Promise<EffectRow[]> {
    const keys = new Set<string>();
    const prefixes = new Set<string>();
    for (const plan of plans) {
      for (const step of plan.steps) {
        if (step.kind === 'cancel') keys.add(step.key);
        if (step.kind === 'cancel-prefix') prefixes.add(step.prefix);
      }
    }
    if (keys.size === 0 && prefixes.size === 0) return [];
    const { schema, partition } = this.#target;
    const { rows } = await send<EffectRow>(
      db,
      sql`SELECT ${EFFECT_COLUMNS} FROM ${sql.id(schema, 'effects')}
           WHERE partition = ${partition} AND reactor = ANY(${names}::text[]) AND state = 'scheduled'
             AND (key = ANY(${[...keys]}::text[])
                  OR EXISTS (SELECT 1 FROM unnest(${[...prefixes]}::text[]) AS p(prefix)
                              WHERE starts_with(key, p.prefix)))`,
    );
    return rows;
  }

  /** Writes the book's changed timers and its new entries, and the SQL effects run, as done. */
  async #writeEffects(
    db: SqlQueryable,
    {
      updated,
      inserted,
      sqlDone,
    }: { updated: EffectEntry[]; inserted: EffectEntry[]; sqlDone: SqlDone[] },
  ): Promise<void> {
    const { schema, partition } = this.#target;
    const effects = sql.id(schema, 'effects');
    if (updated.length > 0) {
      await send(
        db,
        sql`UPDATE ${effects} AS e SET state = u.state, updated_at = clock_timestamp()
              FROM unnest(${updated.map((entry) => entry.id)}::bigint[],
                          ${updated.map((entry) => entry.state)}::text[]) AS u(id, state)
             WHERE e.id = u.id AND e.state = 'scheduled'`,
      );
    }
    const rows = [
      ...inserted.map((entry) => ({ ...entry, partition })),
      ...sqlDone.map((done) => doneRow(done, partition)),
    ];
    if (rows.length > 0) await send(db, insertEffects(effects, rows));
  }

  /** Releases the scheduled timers the book did not read, due by `clockMs`, in the table itself. */
  async #releaseDue(db: SqlQueryable, names: readonly string[], clockMs: number): Promise<number> {
    if (names.length === 0) return 0;
    const { schema, partition } = this.#target;
    const released = await send(
      db,
      sql`UPDATE ${sql.id(schema, 'effects')} SET state = 'ready', updated_at = clock_timestamp()
           WHERE partition = ${partition} AND reactor = ANY(${names}::text[])
             AND state = 'scheduled' AND due_ms <= ${clockMs}`,
    );
    return released.rowCount ?? 0;
  }

  /** Moves the reacting reactors' checkpoints (and watermarks) to `to`, never back. */
  async #moveCheckpoints(
    db: SqlQueryable,
    names: readonly string[],
    to: number,
    marks: Readonly<Record<string, number>>,
  ): Promise<void> {
    const { schema, partition } = this.#target;
    const progress = sql.id(schema, 'reactor_progress');
    await send(
      db,
      sql`INSERT INTO ${progress} (reactor, partition, position, watermark_ms)
       SELECT r, ${partition}, ${to}, w
         FROM unnest(${names}::text[], ${names.map((name) => marks[name] ?? null)}::bigint[]) AS u(r, w)
       ON CONFLICT (reactor, partition) DO UPDATE
         SET position = greatest(${progress}.position, excluded.position),
             watermark_ms = greatest(${progress}.watermark_ms, excluded.watermark_ms),
             updated_at = clock_timestamp()`,
    );
  }
}

/** The reactors' checkpoints in a partition, and those that react in a batch. */
interface ReactorProgress {
  readonly names: string[];
  readonly positions: ReadonlyMap<string, number>;
  readonly watermarks: Record<string, number>;
}

/** An SQL effect run in the batch's transaction: written as a done effect. */
interface SqlDone {
  readonly plan: ReactionPlan;
  readonly index: number;
  readonly idempotencyKey: string;
  readonly effect: unknown;
}

/** Applies the plans to the book, and runs their SQL effects in `db`'s transaction. */
const applyPlans = async (
  db: SqlQueryable,
  book: ReactorEffects,
  plans: readonly ReactionPlan[],
): Promise<SqlDone[]> => {
  const sqlDone: SqlDone[] = [];
  for (const plan of plans) {
    const steps = plan.steps.filter((step) => step.kind !== 'enqueue' || step.sql === undefined);
    book.applyPlan({ ...plan, steps });
    for (const step of plan.steps) {
      if (step.kind !== 'enqueue' || step.sql === undefined) continue;
      // The reactor's own statement, with its own parameters.
      await db.query(step.sql.text, step.sql.values === undefined ? [] : [...step.sql.values]);
      sqlDone.push({
        plan,
        index: step.index,
        idempotencyKey: step.idempotencyKey,
        effect: step.effect,
      });
    }
  }
  return sqlDone;
};

/** The row of an SQL effect run: done at its first attempt. */
const doneRow = (
  { plan, index, idempotencyKey, effect }: SqlDone,
  partition: number,
): EffectInsert => ({
  reactor: plan.reactor,
  partition,
  position: plan.position,
  index,
  idempotencyKey,
  key: undefined,
  effect,
  dueAt: undefined,
  state: 'done',
  attempts: 1,
  lastError: '',
  invalid: false,
});

/** A row of the effects table to insert. */
type EffectInsert = Omit<EffectEntry, 'id' | 'effect'> & {
  readonly partition: number;
  readonly effect: unknown;
};

/** The insert of `rows` into `effects`, one array per column. */
const insertEffects = (effects: Sql, rows: readonly EffectInsert[]): Sql =>
  sql`INSERT INTO ${effects}
        (reactor, partition, position, index, idempotency_key, key, effect, state, due_ms, attempts, last_error, invalid)
      SELECT * FROM unnest(${rows.map((r) => r.reactor)}::text[], ${rows.map((r) => r.partition)}::int[],
                           ${rows.map((r) => r.position)}::bigint[], ${rows.map((r) => r.index)}::int[],
                           ${rows.map((r) => r.idempotencyKey)}::text[], ${rows.map((r) => r.key ?? null)}::text[],
                           ${rows.map((r) => (r.effect === null ? null : JSON.stringify(r.effect)))}::json[],
                           ${rows.map((r) => r.state)}::text[], ${rows.map((r) => r.dueAt ?? null)}::bigint[],
                           ${rows.map((r) => r.attempts)}::int[], ${rows.map((r) => r.lastError)}::text[],
                           ${rows.map((r) => r.invalid)}::boolean[])`;
