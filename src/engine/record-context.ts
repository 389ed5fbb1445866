/**
 * The one record a projector is working on, as every part of its pipeline
 * sees it: the stored record (read by the step), what the step made of it so
 * far (read by the observers of outcomes), and where a halted record resumes
 * (written by the bookkeeping). One object per projector, refilled for each
 * record: a replay allocates nothing per record for it, and no part passes
 * eight positional parameters to the next.
 */
import type { SignEvent } from '../core/events/sign-event.js';
import type { SignRequestId } from '../core/ids.js';
import { type QuarantineReason, rawTextOf } from './quarantine.js';

/** Where a record's text and delivery come from (a log read with `lazyRaw` builds `raw` on demand). */
export interface RecordSource {
  readonly raw?: string | undefined;
  readonly deliveryId?: string | undefined;
}

/** An observation record the step is merging. */
export interface ObservedRequest {
  readonly signRequestId: SignRequestId;
  readonly fetchedAt: string;
  /** What the observation corrects, as messages (empty: it agrees with the projection). */
  readonly differences: readonly string[];
}

const NO_SOURCE: RecordSource = Object.freeze({});

/** The record in progress and what has been made of it; see the module comment. */
export class RecordContext {
  position = 0;
  /** Line in the log file, when read from one. */
  line: number | undefined = undefined;
  receivedAt: string | undefined = undefined;
  /** The stored value (a JSON value), before upcasting; `undefined` for a bad line. */
  value: unknown = undefined;
  /** Read only to quarantine, and for the delivery id. */
  source: RecordSource = NO_SOURCE;

  /** The event being applied, once decoded. */
  event: SignEvent | undefined = undefined;
  /** The upcasters that made `event`, when any did. */
  by: readonly string[] | undefined = undefined;
  /** The place of `event` among its record's events (several when upcasters made them). */
  index = 0;
  count = 1;
  /** Whether one of the record's events so far was applied. */
  applied = false;
  /** The observation being merged, when the record is one. */
  observed: ObservedRequest | undefined = undefined;
  /** The value merged as an observation (an upcaster's rewrite, maybe): its text is kept if it is quarantined. */
  observedValue: unknown = undefined;
  /** Why the record (or one of its events) was set aside or halted on, last. */
  reason: QuarantineReason | undefined = undefined;

  /** Where to go on in a record a `halt` stopped part-way (its first event, otherwise). */
  resumeIndex = 0;
  resumeApplied = false;

  /** Starts on a new record: what earlier records left is cleared. */
  begin(
    position: number,
    line: number | undefined,
    receivedAt: string | undefined,
    value: unknown,
    source: RecordSource,
  ): this {
    this.position = position;
    this.line = line;
    this.receivedAt = receivedAt;
    this.value = value;
    this.source = source;
    this.event = undefined;
    this.by = undefined;
    this.index = 0;
    this.count = 1;
    this.applied = false;
    this.observed = undefined;
    this.observedValue = undefined;
    this.reason = undefined;
    this.resumeIndex = 0;
    this.resumeApplied = false;
    return this;
  }

  /** The text to keep if the record is quarantined: as stored, else the value written out. */
  rawText(): string {
    return this.source.raw ?? rawTextOf(this.observedValue ?? this.value);
  }
}
