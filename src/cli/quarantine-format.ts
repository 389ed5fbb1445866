/**
 * One-line descriptions of quarantined records, shared by `replay` (summary)
 * and `check` (lint output).
 */

import { counted } from '../core/plural.js';
import type { QuarantineEntry } from '../engine/quarantine.js';
import { oneLine } from './cli-error.js';

/** How many quarantined records the replay summary lists before just counting the rest. */
export const LISTED_QUARANTINE = 20;

const LABELS: Readonly<Record<QuarantineEntry['reason']['kind'], string>> = {
  'bad-line': 'bad line',
  'invalid-event': 'invalid event',
  conflict: 'conflict',
};

/** What a description needs: a quarantined record, or the record a `halt` projector stopped at. */
export type BadRecord = Pick<QuarantineEntry, 'position' | 'line' | 'reason'>;

/** The reason, prefixed with its kind: `invalid event: type: ...`, `conflict: deleted: ...`. */
export const describeReason = (entry: BadRecord): string =>
  oneLine(`${LABELS[entry.reason.kind]}: ${entry.reason.message}`);

/** `position 318 (line 318): bad line: invalid JSON: ...` */
export const describeEntry = (entry: BadRecord): string =>
  `position ${entry.position}${entry.line === undefined ? '' : ` (line ${entry.line})`}: ${describeReason(entry)}`;

/** Conflicts versus everything else (bad lines and invalid events). */
export const splitQuarantine = (
  entries: readonly BadRecord[],
): { readonly conflicts: number; readonly invalid: number } => {
  let conflicts = 0;
  for (const entry of entries) if (entry.reason.kind === 'conflict') conflicts += 1;
  return { conflicts, invalid: entries.length - conflicts };
};

/** `6 bad lines or invalid events, 1 conflict`: the split, as `replay` and `check` count it. */
export const describeSplit = (split: {
  readonly conflicts: number;
  readonly invalid: number;
}): string =>
  `${counted(split.invalid, 'bad line or invalid event', 'bad lines or invalid events')}, ` +
  counted(split.conflicts, 'conflict');
