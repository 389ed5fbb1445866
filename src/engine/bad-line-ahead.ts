/**
 * A file's bad line holds no position of its own (it shares the position of
 * the entry after it), so the projector quarantines it without moving its
 * checkpoint, and a replay resumed from the checkpoint reads it again. What
 * tells the projector it already has: the last such line it quarantined, by
 * position and line, which the end of its quarantine also gives.
 */
import type { QuarantineEntry } from './quarantine.js';

/** The last bad line quarantined above the checkpoint. */
export interface BadLineAhead {
  readonly position: number;
  readonly line: number;
}

/**
 * The last bad line quarantined above `checkpoint`, found at the end of the
 * quarantine: only a bad line sharing its position stays above the
 * checkpoint, and anything processed after it would have moved the checkpoint
 * past it.
 */
export const badLineAheadOf = (
  quarantine: readonly QuarantineEntry[],
  checkpoint: number,
): BadLineAhead | undefined => {
  const last = quarantine.at(-1);
  if (last === undefined || last.reason.kind !== 'bad-line' || last.line === undefined) {
    return undefined;
  }
  return last.position > checkpoint ? { position: last.position, line: last.line } : undefined;
};

/** Whether the bad line at `position` and `line` comes no later than `ahead` (read in file order). */
export const isAtOrBefore = (
  ahead: BadLineAhead | undefined,
  position: number,
  line: number,
): boolean =>
  ahead !== undefined &&
  (position < ahead.position || (position === ahead.position && line <= ahead.line));
