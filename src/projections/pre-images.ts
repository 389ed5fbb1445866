/**
 * Where a {@link WorkingCopy} leaves the records one event is about to
 * change, as they were before it: the `before` views of a reactor's change,
 * kept without reading or copying anything for records the event leaves
 * alone. Only the records the event names are watched (the views it
 * touches), so a handler writing elsewhere costs nothing here.
 */
import type { ParticipantId, SignRequestId, TemplateId } from '../ids.js';
import type { ParticipantView, SignRequestView, TemplateView } from './records.js';

/** A watched record no write has reached yet during the event. */
export const UNWRITTEN: unique symbol = Symbol('unwritten');

/** A watched slot: its pre-image, `undefined` when the event created the record, or {@link UNWRITTEN}. */
export type PreImage<T> = T | undefined | typeof UNWRITTEN;

/** The records one event names, and their pre-images once written (see the module comment). */
export interface PreImages {
  readonly templateId: TemplateId | undefined;
  readonly signRequestId: SignRequestId | undefined;
  readonly participantId: ParticipantId | undefined;
  template: PreImage<TemplateView>;
  signRequest: PreImage<SignRequestView>;
  participant: PreImage<ParticipantView>;
}

/**
 * A record as it stands, made safe to keep: a frozen one never changes
 * (published state), a mutable one is copied. Records hold primitives
 * (loaded `fields` are frozen), so a shallow copy is enough.
 */
export const keepable = <T extends object>(record: T | undefined): T | undefined =>
  record === undefined || Object.isFrozen(record) ? record : { ...record };
