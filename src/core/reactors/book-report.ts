/**
 * The `effects` report of a book's entries: counts per reactor and the
 * parked effects. Written once, so the file engine and the test kit print
 * the same numbers.
 */

import type { BookEntry } from './book-entry.js';
import type { EffectsReport } from './effects-report.js';

type Row = { name: string; pending: number; parked: number; done: number };

/** Counts `entries` per reactor (sorted by name) and lists the parked ones (in the order given). */
export const reportOf = (entries: Iterable<BookEntry>): EffectsReport => {
  const counts = new Map<string, Row>();
  const parked: EffectsReport['parked'][number][] = [];
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
  return { reactors, parked: parked.sort((a, b) => a.id - b.id) };
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
  return { reactors, parked: report.parked };
};
