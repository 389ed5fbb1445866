/**
 * A projector's bookkeeping of positions: the checkpoint, and the three
 * places the checkpoint alone cannot tell (a file's bad line quarantined
 * above it, an incomplete last line, a record a `halt` stopped part-way). It
 * decides whether a record is still to do and where to resume in it; what a
 * record does is the step's business.
 */
import type { QuarantineEntry } from './quarantine.js';
import type { RecordContext } from './record-context.js';

/**
 * The last bad line quarantined above the checkpoint. A file's bad line holds no position of its own (it shares the position of
 * the entry after it), so the projector quarantines it without moving its
 * checkpoint, and a replay resumed from the checkpoint reads it again. What
 * tells the projector it already has: the last such line it quarantined, by
 * position and line, which the end of its quarantine also gives.
 */
interface BadLineAboveCheckpoint {
  readonly position: number;
  readonly line: number;
}

/** Where a `halt` stopped inside a record upcasters made several events of. */
interface HaltedWithin {
  readonly position: number;
  /** The event it stopped at: those before it are applied. */
  readonly index: number;
  /** Whether one of those was applied (the record then counts as applied). */
  readonly applied: boolean;
}

/**
 * The last bad line quarantined above `checkpoint`, found at the end of the
 * quarantine: only a bad line sharing its position stays above the
 * checkpoint, and anything processed after it would have moved the checkpoint
 * past it.
 */
const badLineAboveCheckpoint = (
  quarantine: readonly QuarantineEntry[],
  checkpoint: number,
): BadLineAboveCheckpoint | undefined => {
  const last = quarantine.at(-1);
  if (last === undefined || last.reason.kind !== 'bad-line' || last.line === undefined) {
    return undefined;
  }
  return last.position > checkpoint ? { position: last.position, line: last.line } : undefined;
};

/** The checkpoint and what goes with it; see the module comment. */
export class ProjectorProgress {
  #checkpoint: number;
  /**
   * The last bad line quarantined above the checkpoint: one sharing its position with the next
   * entry (a file's) does not move the checkpoint, so a resumed replay meets it again and passes
   * it and the bad lines before it over. Rebuilt from the quarantine on restore.
   */
  #badLineAhead: BadLineAboveCheckpoint | undefined;
  #incompleteTail: { readonly position: number; readonly line: number } | undefined;
  /** Resuming goes on from its index instead of applying the events before it twice. */
  #haltedWithin: HaltedWithin | undefined;

  constructor(checkpoint: number, quarantine: readonly QuarantineEntry[]) {
    this.#checkpoint = checkpoint;
    this.#badLineAhead = badLineAboveCheckpoint(quarantine, checkpoint);
  }

  /** The last processed position (0 before any). */
  get checkpoint(): number {
    return this.#checkpoint;
  }

  /** The unterminated last line met by the latest read, while it is still the last thing read. */
  get incompleteTail(): { readonly position: number; readonly line: number } | undefined {
    return this.#incompleteTail;
  }

  /** Whether the record at `position` is processed already (at or below the checkpoint). */
  isDone(position: number): boolean {
    return position <= this.#checkpoint;
  }

  /**
   * Whether the bad line at `position` and `line` was quarantined before an interruption and is
   * read again (it comes no later, in file order, than the last one above the checkpoint).
   */
  isBadLineSeen(position: number, line: number): boolean {
    const ahead = this.#badLineAhead;
    return (
      ahead !== undefined &&
      (position < ahead.position || (position === ahead.position && line <= ahead.line))
    );
  }

  /** A record past the checkpoint is read: an incomplete last line met before is not the last any more. */
  reading(): void {
    this.#incompleteTail = undefined;
  }

  /** An unterminated last line: neither applied nor quarantined, the checkpoint stays before it. */
  incomplete(position: number, line: number): void {
    this.#incompleteTail = { position, line };
  }

  /** A bad line quarantined without moving the checkpoint (it shares its position with the next entry). */
  badLineAhead(position: number, line: number): void {
    this.#badLineAhead = { position, line };
  }

  /** Tells `record` where to go on, if a `halt` stopped part-way through the record at its position. */
  resume(record: RecordContext): void {
    const within = this.#haltedWithin;
    if (within === undefined || within.position !== record.position) return;
    record.resumeIndex = within.index;
    record.resumeApplied = within.applied;
  }

  /** A `halt` stopped at `record`'s current event, one of several: resume from it next time. */
  haltedWithin(record: RecordContext): void {
    this.#haltedWithin = {
      position: record.position,
      index: record.index,
      applied: record.applied,
    };
  }

  /** The record at `position` is processed: the checkpoint moves to it. */
  advance(position: number): void {
    this.#checkpoint = position;
    this.#badLineAhead = undefined;
    this.#haltedWithin = undefined;
  }
}
