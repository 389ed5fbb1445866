/**
 * The reactors' observer of a projector's outcomes: it builds the `Change`
 * of each applied event (an `AppliedChange` watching the working copy's
 * writes while the event is applied), or the changes of a repair, and hands
 * them to `onApplied`. A projector without `onApplied` has none, and builds
 * nothing for it.
 *
 * The change of a record's last event, and a repair's, are handed once the
 * record is done (its checkpoint moved): the changes of the events before it
 * at once, since the working copy moves on with the next event.
 */
import type { SignEvent } from '../core/events/sign-event.js';
import { type RequestImage, repairEvents } from '../core/observations/repair-events.js';
import type { Conflict } from '../core/projections/conflict.js';
import type { Outcome } from '../core/projections/projection-draft.js';
import type { WorkingCopy } from '../core/projections/working-copy.js';
import type { Change, Upcast } from '../core/reactors/reactor-types.js';
import { AppliedChange, scopedStateOf } from './applied-change.js';
import type { ObservedRequest, RecordContext } from './record-context.js';
import { repairChanges, requestImageOf } from './repair-changes.js';

/** Builds and hands out the changes reactors react to; see the module comment. */
export class ReactorObserver {
  readonly #copy: WorkingCopy;
  readonly #onApplied: (change: Change) => void;
  /** The change of the event being applied. */
  #change: AppliedChange | undefined;
  /** The change of the record's last event, to hand once the record is done. */
  #pending: AppliedChange | undefined;
  /** The observed sign request before the observation was merged. */
  #before: RequestImage | undefined;
  /** Set once the observation repaired something: its changes are handed once the record is done. */
  #repaired = false;

  constructor(copy: WorkingCopy, onApplied: (change: Change) => void) {
    this.#copy = copy;
    this.#onApplied = onApplied;
  }

  /** Starts watching the writes of `record.event`, for its change's `before`. */
  eventApplying(record: RecordContext): void {
    const upcast: Upcast | undefined =
      record.by === undefined
        ? undefined
        : { by: record.by, index: record.index, count: record.count };
    this.#change = new AppliedChange(
      this.#copy,
      record.event as SignEvent,
      record.position,
      record.receivedAt,
      record.source,
      upcast,
    );
  }

  /** Stops watching; the change of an applied event is handed (or kept, for the record's last). */
  eventFolded(record: RecordContext, outcome: Outcome | Conflict): void {
    this.#copy.watch(undefined);
    const change = this.#change;
    this.#change = undefined;
    if (outcome !== 'applied' || change === undefined) return;
    if (record.index === record.count - 1) this.#pending = change;
    else change.handTo(this.#onApplied);
  }

  /** Keeps the observed sign request as it stands, for the repair's `before`. */
  observing(record: RecordContext): void {
    this.#before = requestImageOf(this.#copy, (record.observed as ObservedRequest).signRequestId);
  }

  /** Notes a repair: its changes are handed once the record is done. */
  observed(outcome: Outcome): void {
    this.#repaired = outcome === 'applied';
  }

  /** The record is done (or halted on): what it kept back is handed, and forgotten either way. */
  recordDone(record: RecordContext, halted: boolean): void {
    const change = this.#pending;
    const before = this.#before;
    const repaired = this.#repaired;
    this.#pending = undefined;
    this.#before = undefined;
    this.#repaired = false;
    if (halted) return;
    if (change !== undefined) change.handTo(this.#onApplied);
    else if (repaired && before !== undefined) this.#handRepair(record, before);
  }

  /** One change per event the repair stands for, each at the observation's position. */
  #handRepair(record: RecordContext, before: RequestImage): void {
    const { signRequestId, fetchedAt, differences } = record.observed as ObservedRequest;
    const after = requestImageOf(this.#copy, signRequestId);
    const { events } = repairEvents(before, after);
    if (events[0] === undefined) return;
    const state = scopedStateOf(this.#copy, events[0]);
    const { position, receivedAt } = record;
    const context = { position, receivedAt, fetchedAt, differences, before, after, state };
    for (const change of repairChanges(context, events)) this.#onApplied(change);
  }
}
