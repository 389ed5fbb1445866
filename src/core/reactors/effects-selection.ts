/**
 * Which parked effects an operator's `effects retry|skip` means when it names
 * them by filter rather than by id: after an outage of the service a reactor
 * talks to, hundreds are parked with the same error. Pure, so the file
 * runner, the offline journal edit and the tests share one reading; the
 * PostgreSQL adapter asks the same question in SQL.
 */
import type { EffectEntry } from './effect-entry.js';

/** A filter over parked effects; every member given must hold. */
export interface EffectsFilter {
  /** Only this reactor's. */
  readonly reactor?: string;
  /** Only those whose last error contains this text (case-sensitive). */
  readonly error?: string;
}

/** What an operator's `effects retry|skip` asks for. */
export interface EditRequest {
  readonly edit: 'retry' | 'skip';
  /** The effects named by id, or, when absent, those `filter` selects among the parked. */
  readonly ids?: readonly number[];
  readonly filter?: EffectsFilter;
}

/** The parked effects `filter` selects, by id. */
export const selectParked = (
  entries: Iterable<EffectEntry>,
  filter: EffectsFilter,
): readonly number[] => {
  const ids: number[] = [];
  for (const entry of entries) {
    if (entry.state !== 'parked') continue;
    if (filter.reactor !== undefined && entry.reactor !== filter.reactor) continue;
    if (filter.error !== undefined && !entry.lastError.includes(filter.error)) continue;
    ids.push(entry.id);
  }
  return ids.sort((a, b) => a - b);
};
