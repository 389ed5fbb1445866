/**
 * The pure step of a projector, its `evolve`: one stored record to its
 * outcome. It upcasts the record, decodes it as an event or an observation,
 * and folds it into the working copy: applied, a no-op, or set aside (a
 * conflict, or what does not decode). It does no I/O and keeps no books: the
 * checkpoint, the quarantine, counters, audit trails, reactors and tracing
 * are the business of whoever listens on its {@link StepHook}, so the step is
 * tested alone with a hook that records the calls.
 */
import { type DecodeEventOptions, decodeEvent } from '../core/events/decode-event.js';
import type { SignEvent } from '../core/events/sign-event.js';
import { decodeObservation } from '../core/observations/decode-observation.js';
import { isObservationValue } from '../core/observations/observation.js';
import { compareSignRequest } from '../core/projections/compare-sign-request.js';
import type { Conflict } from '../core/projections/conflict.js';
import { applyEvent } from '../core/projections/dispatch.js';
import { applyRepresentation } from '../core/projections/load-sign-request.js';
import type { Outcome } from '../core/projections/projection-draft.js';
import type { WorkingCopy } from '../core/projections/working-copy.js';
import { type UpcastValue, upcastRecord } from '../core/upcasters/upcast-record.js';
import type { Upcaster } from '../core/upcasters/upcaster-types.js';
import { conflicting, invalidEvent, type QuarantineReason } from './quarantine.js';
import type { RecordContext } from './record-context.js';
import { invalidUpcast, upcastFailed } from './upcast-quarantine.js';

/**
 * What a record came to. `applied` when one of its events was (or an
 * observation repaired something); `quarantined` when it, or one of its
 * events, was set aside; `halted` when setting aside was refused.
 */
export type StepOutcome = 'applied' | 'no-op' | 'quarantined' | 'halted';

/**
 * Who hears of each outcome as it happens, in this order: for an event
 * `eventApplying`, `eventFolded`, then `setAside` if it conflicted; for an
 * observation `observing`, then `observed` or `setAside`. The record's
 * context tells which event or observation, and its place in the record.
 */
export interface StepHook {
  /** `record.event` is about to be applied to the working copy. */
  eventApplying(record: RecordContext): void;
  /** The working copy applied `record.event`: a conflict is set aside next. */
  eventFolded(record: RecordContext, outcome: Outcome | Conflict): void;
  /** `record.observed` is about to be merged into the working copy. */
  observing(record: RecordContext): void;
  /** `record.observed` is merged: `applied` when it repaired the projection. */
  observed(record: RecordContext, outcome: Outcome): void;
  /**
   * The record, or its current event or observation, cannot be applied:
   * `true` once it is quarantined, `false` to halt before it (the bad-input
   * policy is the listener's).
   */
  setAside(record: RecordContext, reason: QuarantineReason): boolean;
}

/** The step itself; see the module comment. */
export class ProjectionStep {
  readonly #copy: WorkingCopy;
  readonly #upcasters: readonly Upcaster[];
  readonly #decodeOptions: DecodeEventOptions;
  readonly #hook: StepHook;

  constructor(
    copy: WorkingCopy,
    upcasters: readonly Upcaster[],
    decodeOptions: DecodeEventOptions,
    hook: StepHook,
  ) {
    this.#copy = copy;
    this.#upcasters = upcasters;
    this.#decodeOptions = decodeOptions;
    this.#hook = hook;
  }

  /** Folds the stored value of `record` (a record past the checkpoint) into the working copy. */
  project(record: RecordContext): StepOutcome {
    const { value } = record;
    // An observation record is signfold's own, not the service's: no upcaster rewrites it.
    if (this.#upcasters.length > 0 && !isObservationValue(value)) {
      const upcast = upcastRecord(this.#upcasters, value);
      if (upcast.isErr()) return this.#setAside(record, upcastFailed(upcast.error));
      if (upcast.value !== undefined) return this.#projectUpcast(record, upcast.value);
    }
    const decoded = decodeEvent(value, this.#decodeOptions);
    if (decoded.isOk()) return this.#apply(record, decoded.value);
    // Looked for only once decoding failed: a log without observations pays nothing for them.
    if (isObservationValue(value)) return this.#observe(record, value);
    return this.#setAside(record, invalidEvent(decoded.error));
  }

  /**
   * A record upcasters rewrote: what it became is decoded whole before anything is applied (one
   * value that does not decode sets the record aside), then applied in order at its position.
   */
  #projectUpcast(record: RecordContext, values: readonly UpcastValue[]): StepOutcome {
    const only = values.length === 1 ? values[0] : undefined;
    if (only !== undefined) {
      // One event, the common case: no list.
      const decoded = decodeEvent(only.value, this.#decodeOptions);
      if (decoded.isOk()) {
        record.by = only.by;
        return this.#apply(record, decoded.value);
      }
      // An upcaster may also rewrite an observation record (into one).
      if (isObservationValue(only.value)) return this.#observe(record, only.value);
      return this.#setAside(record, invalidUpcast(decoded.error, only.by));
    }
    const events: SignEvent[] = [];
    for (const item of values) {
      const decoded = decodeEvent(item.value, this.#decodeOptions);
      if (decoded.isErr()) return this.#setAside(record, invalidUpcast(decoded.error, item.by));
      events.push(decoded.value);
    }
    // Dropped by an upcaster: processed, nothing to apply.
    if (events.length === 0) return 'no-op';
    return this.#applyAll(record, values, events);
  }

  /**
   * The events upcasters made of one record, in order, from where a `halt` stopped part-way if
   * it did. The record counts once, as any record: applied when one of its events was.
   */
  #applyAll(
    record: RecordContext,
    values: readonly UpcastValue[],
    events: readonly SignEvent[],
  ): StepOutcome {
    record.count = events.length;
    record.applied = record.resumeApplied;
    let quarantined = false;
    for (let index = record.resumeIndex; index < events.length; index += 1) {
      record.index = index;
      record.by = (values[index] as UpcastValue).by;
      const outcome = this.#apply(record, events[index] as SignEvent);
      if (outcome === 'applied') record.applied = true;
      else if (outcome === 'quarantined') quarantined = true;
      else if (outcome === 'halted') return outcome;
    }
    if (record.applied) return 'applied';
    return quarantined ? 'quarantined' : 'no-op';
  }

  /** Applies one decoded event; a conflict is set aside. */
  #apply(record: RecordContext, event: SignEvent): StepOutcome {
    record.event = event;
    this.#hook.eventApplying(record);
    const outcome = applyEvent(this.#copy, event, record.receivedAt);
    this.#hook.eventFolded(record, outcome);
    if (typeof outcome === 'object') return this.#setAside(record, conflicting(outcome));
    return outcome;
  }

  /** An observation record, merged by `loadSignRequest`'s rules. */
  #observe(record: RecordContext, value: unknown): StepOutcome {
    record.observedValue = value;
    const decoded = decodeObservation(value);
    if (decoded.isErr()) return this.#setAside(record, invalidEvent(decoded.error));
    const { signRequest, fetchedAt, companyId } = decoded.value;
    const differences = this.#copy
      .peek((state) => compareSignRequest(state, signRequest))
      .map((difference) => difference.message);
    record.observed = { signRequestId: signRequest.id, fetchedAt, differences };
    this.#hook.observing(record);
    const origin = companyId === undefined ? {} : { companyId };
    const outcome = applyRepresentation(this.#copy, signRequest, origin, fetchedAt);
    if (typeof outcome === 'object') return this.#setAside(record, conflicting(outcome));
    const repaired: Outcome = differences.length > 0 ? 'applied' : 'no-op';
    this.#hook.observed(record, repaired);
    return repaired;
  }

  #setAside(record: RecordContext, reason: QuarantineReason): StepOutcome {
    record.reason = reason;
    return this.#hook.setAside(record, reason) ? 'quarantined' : 'halted';
  }
}
