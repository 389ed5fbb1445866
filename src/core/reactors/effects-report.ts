/**
 * The `signfold effects --json` shapes, shared by the file engine and the
 * PostgreSQL adapter so both print the same thing.
 */
import type { JsonValue } from './reactor-types.js';

/** Counts per reactor and the parked effects (reactors sorted by name, parked by id). */
export interface EffectsReport {
  readonly reactors: readonly {
    readonly name: string;
    /** scheduled + ready + retrying. */
    readonly pending: number;
    readonly parked: number;
    readonly done: number;
  }[];
  readonly parked: readonly {
    readonly id: number;
    readonly reactor: string;
    readonly idempotencyKey: string;
    readonly attempts: number;
    readonly lastError: string;
    /** Exactly as `react` returned it; `null` when react threw or returned non-JSON. */
    readonly effect: JsonValue | null;
  }[];
}

/** The result of `effects retry|skip ID…`. */
export interface EffectsChange {
  readonly changed: readonly number[];
  /** Unknown id, not parked, or (retry) an invalid effect. */
  readonly refused: readonly { readonly id: number; readonly reason: string }[];
}

/** The report with no reactor state yet. */
export const EMPTY_EFFECTS_REPORT: EffectsReport = Object.freeze({ reactors: [], parked: [] });
