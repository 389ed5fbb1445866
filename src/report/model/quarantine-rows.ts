/** The quarantine as the report shows it: counts by kind, and the first rows. */
import type { QuarantineEntry } from '../../engine/quarantine.js';
import type { QuarantineOrigin } from './period-reader.js';
import {
  LISTED_ROWS,
  type ProblemKindCount,
  type QuarantineGroup,
  type QuarantineModel,
  type QuarantineRow,
} from './report-model.js';

const CATEGORY: Readonly<Record<QuarantineEntry['reason']['kind'], ProblemKindCount['category']>> =
  {
    'bad-line': 'bad line',
    'invalid-event': 'invalid event',
    conflict: 'conflict',
  };

/** A message with its numbers (ids, positions, line and column numbers) as `#`. */
export const messageShape = (message: string): string => message.replace(/\d+/g, '#');

/** The kind within the category: the decode error's or the conflict's kind. */
const kindOf = (entry: QuarantineEntry): string => {
  const reason = entry.reason;
  if (reason.kind === 'invalid-event') return reason.error.kind;
  if (reason.kind === 'conflict') return reason.conflict.kind;
  // Bad lines have only a message: `invalid JSON: …`, `invalid UTF-8`, … (its part before a
  // colon), which may name positions: their numbers as `#`, so one kind of error is one kind.
  return messageShape(reason.message.split(':')[0] ?? 'bad-line');
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

type MutableGroup = { -readonly [K in keyof QuarantineGroup]: QuarantineGroup[K] } & {
  firstMessage: string;
  sameMessage: boolean;
};

/**
 * Records grouped by category, kind and message shape: messages that differ
 * only in their numbers (`sign-request 100073` / `100074`) are one group,
 * shown with `#` for the numbers; a group whose messages are all the same
 * shows the message as it is. Most records first.
 */
export const quarantineGroups = (
  entries: readonly QuarantineEntry[],
  origins: readonly (QuarantineOrigin | undefined)[],
): QuarantineGroup[] => {
  const groups = new Map<string, MutableGroup>();
  entries.forEach((entry, index) => {
    const category = CATEGORY[entry.reason.kind];
    const kind = kindOf(entry);
    const message = entry.reason.message;
    const shape = messageShape(message);
    const key = `${category}\u0000${kind}\u0000${shape}`;
    const origin = origins[index];
    const at = origin?.receivedAt;
    let group = groups.get(key);
    if (group === undefined) {
      group = {
        category,
        kind,
        message: shape,
        count: 0,
        first: undefined,
        last: undefined,
        sampleDeliveryId: undefined,
        samplePosition: entry.position,
        firstMessage: message,
        sameMessage: true,
      };
      groups.set(key, group);
    }
    group.count += 1;
    if (message !== group.firstMessage) group.sameMessage = false;
    if (at !== undefined) {
      const time = new Date(at).toISOString();
      if (group.first === undefined || time < group.first) group.first = time;
      if (group.last === undefined || time > group.last) group.last = time;
    }
    group.sampleDeliveryId ??= origin?.deliveryId;
  });
  return [...groups.values()]
    .map(({ firstMessage, sameMessage, ...group }) => ({
      ...group,
      message: sameMessage ? firstMessage : group.message,
    }))
    .sort((a, b) => b.count - a.count || a.samplePosition - b.samplePosition);
};

/** The total, the groups and the first {@link LISTED_ROWS} entries, in log order. */
export const quarantineModel = (
  entries: readonly QuarantineEntry[],
  origins: readonly (QuarantineOrigin | undefined)[] = [],
): QuarantineModel => ({
  total: entries.length,
  groups: quarantineGroups(entries, origins),
  listed: entries.slice(0, LISTED_ROWS).map(rowOf),
});
