/**
 * Rows of the `effects` table as the book's entries, and back: the batch
 * restores a partition's scheduled timers into a `ReactorEffects`, applies the
 * plans, and writes what changed, so the rules of timers live in one place.
 */

import type { EffectEntry, EffectState } from '../../core/reactors/reactor-effects.js';
import type { JsonValue } from '../../core/reactors/reactor-types.js';
import { type Sql, sql } from '../sql/sql.js';

/** An `effects` row as `pg` returns it (bigints as strings). */
export interface EffectRow {
  readonly id: string;
  readonly reactor: string;
  readonly partition: number;
  readonly position: string;
  readonly index: number;
  readonly idempotency_key: string;
  readonly key: string | null;
  readonly effect: JsonValue | null;
  readonly state: EffectState;
  readonly due_ms: string | null;
  readonly attempts: number;
  readonly last_error: string;
  readonly invalid: boolean;
}

/** The columns {@link EffectRow} reads (`effect` as text, parsed here, so `pg` does not parse it twice). */
export const EFFECT_COLUMNS: Sql = sql`id, reactor, partition, position, index, idempotency_key, key, effect, state, due_ms, attempts, last_error, invalid`;

/** The book entry of a row. */
export const entryOfRow = (row: EffectRow): EffectEntry => ({
  id: Number(row.id),
  reactor: row.reactor,
  position: Number(row.position),
  index: row.index,
  idempotencyKey: row.idempotency_key,
  key: row.key ?? undefined,
  effect: row.effect,
  dueAt: row.due_ms === null ? undefined : Number(row.due_ms),
  state: row.state,
  attempts: row.attempts,
  lastError: row.last_error,
  invalid: row.invalid,
});
