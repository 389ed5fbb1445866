/** The records of a `ReactorEffects`: one per effect, and what a store saves of a book. */
import type { JsonValue } from './reactor-types.js';

/** scheduled: a timer not yet released; ready: released; retrying: released, failed, waiting. */
export type EffectState = 'scheduled' | 'ready' | 'retrying' | 'done' | 'parked' | 'cancelled';

/** One effect in the book. */
export interface EffectEntry {
  readonly id: number;
  readonly reactor: string;
  readonly position: number;
  readonly index: number;
  readonly idempotencyKey: string;
  readonly key: string | undefined;
  readonly effect: JsonValue | null;
  /** ms epoch; `undefined` = immediate (orders before every timer). */
  readonly dueAt: number | undefined;
  readonly state: EffectState;
  readonly attempts: number;
  readonly lastError: string;
  /** Parked by `planReaction` (never attempted): `retry` refuses it. */
  readonly invalid: boolean;
}

/** A writable copy of a readonly type, for the book's own records. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** What a store keeps of a book to restore it (see `ReactorEffects.restore`). */
export interface SavedEffects {
  readonly entries: readonly EffectEntry[];
  /** Reactor name → watermark (ms epoch). */
  readonly watermarks: Readonly<Record<string, number>>;
  readonly nextId: number;
}
