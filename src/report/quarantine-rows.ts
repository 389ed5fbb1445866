/** The quarantine as the report shows it: counts by kind, and the first rows. */
import type { QuarantineEntry } from '../engine/quarantine.js';
import {
  LISTED_ROWS,
  type ProblemKindCount,
  type QuarantineModel,
  type QuarantineRow,
} from './report-model.js';

const CATEGORY: Readonly<Record<QuarantineEntry['reason']['kind'], ProblemKindCount['category']>> =
  {
    'bad-line': 'bad line',
    'invalid-event': 'invalid event',
    conflict: 'conflict',
  };

/** The kind within the category: the decode error's or the conflict's kind. */
const kindOf = (entry: QuarantineEntry): string => {
  const reason = entry.reason;
  if (reason.kind === 'invalid-event') return reason.error.kind;
  if (reason.kind === 'conflict') return reason.conflict.kind;
  // Bad lines have only a message: `invalid JSON: …`, `invalid UTF-8`, … (its part before a colon).
  return reason.message.split(':')[0] ?? 'bad-line';
};

const rowOf = (entry: QuarantineEntry): QuarantineRow => ({
  position: entry.position,
  line: entry.line,
  category: CATEGORY[entry.reason.kind],
  kind: kindOf(entry),
  message: entry.reason.message,
});

/** Quarantined records by category and kind, sorted by category then kind. */
export const problemsByKind = (entries: readonly QuarantineEntry[]): ProblemKindCount[] => {
  const counts = new Map<string, ProblemKindCount>();
  for (const entry of entries) {
    const category = CATEGORY[entry.reason.kind];
    const kind = kindOf(entry);
    const key = `${category}\u0000${kind}`;
    const found = counts.get(key);
    counts.set(key, { category, kind, count: (found?.count ?? 0) + 1 });
  }
  return [...counts.values()].sort((a, b) =>
    a.category === b.category
      ? a.kind < b.kind
        ? -1
        : a.kind > b.kind
          ? 1
          : 0
      : a.category < b.category
        ? -1
        : 1,
  );
};

/** The total and the first {@link LISTED_ROWS} entries, in log order. */
export const quarantineModel = (entries: readonly QuarantineEntry[]): QuarantineModel => ({
  total: entries.length,
  listed: entries.slice(0, LISTED_ROWS).map(rowOf),
});
