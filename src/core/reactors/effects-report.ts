/**
 * What the reactor model reports of its effects: counts per reactor and the
 * parked effects ({@link EffectsReport}), and what an operator's retry or skip
 * changed ({@link EffectsChange}). The reactor model makes the report of its
 * own entries ({@link reportOf}); the PostgreSQL adapter builds the same shape
 * from its tables, so `signfold effects --json` prints the same thing on both.
 */
import type { EffectEntry } from './effect-entry.js';
import type { JsonValue } from './reactor-types.js';

/**
 * Counts per reactor, the parked effects (reactors sorted by name, parked by
 * id) and the timers not yet due (by due time, then id).
 */
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
  /** Scheduled effects (timers), each with when it is due. */
  readonly timers: readonly {
    readonly id: number;
    readonly reactor: string;
    /** The key it was scheduled under (what a cancel names), or `null`. */
    readonly key: string | null;
    /** ISO 8601, UTC. */
    readonly dueAt: string;
    readonly idempotencyKey: string;
  }[];
}

/** The result of `effects retry|skip ID…`. */
export interface EffectsChange {
  readonly changed: readonly number[];
  /** Unknown id, not parked, or (retry) an invalid effect. */
  readonly refused: readonly { readonly id: number; readonly reason: string }[];
}

type Row = { name: string; pending: number; parked: number; done: number };

/** Counts `entries` per reactor (sorted by name) and lists the parked ones (in the order given). */
export const reportOf = (entries: Iterable<EffectEntry>): EffectsReport => {
  const counts = new Map<string, Row>();
  const parked: EffectsReport['parked'][number][] = [];
  const timers: (EffectsReport['timers'][number] & { due: number })[] = [];
  for (const entry of entries) {
    const row = counts.get(entry.reactor) ?? {
      name: entry.reactor,
      pending: 0,
      parked: 0,
      done: 0,
    };
    counts.set(entry.reactor, row);
    if (entry.state === 'scheduled' || entry.state === 'ready' || entry.state === 'retrying') {
      row.pending += 1;
      if (entry.state === 'scheduled' && entry.dueAt !== undefined) {
        const { id, reactor, key, dueAt, idempotencyKey } = entry;
        const at = new Date(dueAt).toISOString();
        timers.push({ id, reactor, key: key ?? null, dueAt: at, idempotencyKey, due: dueAt });
      }
    } else if (entry.state === 'done') {
      row.done += 1;
    } else if (entry.state === 'parked') {
      row.parked += 1;
      const { id, reactor, idempotencyKey, attempts, lastError, effect } = entry;
      parked.push({ id, reactor, idempotencyKey, attempts, lastError, effect });
    }
  }
  const reactors = [...counts.values()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  timers.sort((a, b) => a.due - b.due || a.id - b.id);
  return {
    reactors,
    parked: parked.sort((a, b) => a.id - b.id),
    timers: timers.map(({ due: _due, ...timer }) => timer),
  };
};

/** `report` with `done` (effects done and since pruned, per reactor) added to its counts. */
export const withPrunedDone = (
  report: EffectsReport,
  done: Readonly<Record<string, number>>,
): EffectsReport => {
  const rows = new Map(report.reactors.map((row) => [row.name, { ...row }]));
  for (const [name, count] of Object.entries(done)) {
    const row = rows.get(name) ?? { name, pending: 0, parked: 0, done: 0 };
    row.done += count;
    rows.set(name, row);
  }
  const reactors = [...rows.values()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  return { reactors, parked: report.parked, timers: report.timers };
};
