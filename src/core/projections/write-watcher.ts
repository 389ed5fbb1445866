/**
 * What a {@link WorkingCopy} tells the one watching it (a reactor's change)
 * just before it writes a record: the record as it stands, and whether the
 * write changes that object in place (it must then be copied to be kept) or
 * replaces it (an add, or a write to a frozen record, which copies it). The
 * watcher keeps the first one of each record it cares about: the `before`
 * views, without reading or copying anything for records the event leaves
 * alone.
 */
import type { ParticipantId, SignRequestId, TemplateId } from '../ids.js';
import type { ParticipantView, SignRequestView, TemplateView } from './records.js';

/** See the module comment; `record` is `undefined` when the write creates it. */
export interface WriteWatcher {
  keepTemplate(id: TemplateId, record: TemplateView | undefined, inPlace: boolean): void;
  keepSignRequest(id: SignRequestId, record: SignRequestView | undefined, inPlace: boolean): void;
  keepParticipant(
    signRequestId: SignRequestId,
    id: ParticipantId,
    record: ParticipantView | undefined,
    inPlace: boolean,
  ): void;
}

/**
 * A record as it stands, made safe to keep: a frozen one never changes
 * (published state), a mutable one is copied. Records hold primitives
 * (loaded `fields` are frozen), so a shallow copy is enough.
 */
export const keepable = <T extends object>(record: T | undefined): T | undefined =>
  record === undefined || Object.isFrozen(record) ? record : { ...record };
