/**
 * Event builders for tests: one per event type, valid by default, where a
 * test states only the members that matter. Every event goes through the
 * real decoder, so a builder can never produce what `decodeEvent` refuses.
 *
 * Pure (no `node:` import): `signfold/testing` and the browser-safe
 * `signfold/core` build their builders here, differing only in what they
 * throw for an invalid override.
 */
import { type DecodeError, formatDecodeError } from '../decode-error.js';
import { decodeEvent } from '../events/decode-event.js';
import { EVENT_MEMBERS, type EventType, type MemberName } from '../events/event-members.js';
import type { EventOf } from '../events/sign-event.js';

/** The plain value a member takes in a builder: a number for ids, a string for names. */
export type PlainValue<M extends MemberName> = M extends `${string}Id` ? number : string;

/**
 * The members a test may set on an event of type `T`, all optional, ids as
 * plain numbers. A member the type does not carry is a compile error.
 */
export type EventOverrides<T extends EventType> = {
  readonly [M in (typeof EVENT_MEMBERS)[T][number]]?: PlainValue<M>;
};

/**
 * The defaults of every member: one company, one template, one sign request
 * with one participant, so events built without overrides belong together.
 */
export const EVENT_DEFAULTS = {
  companyId: 1,
  ownerId: 10,
  ownerName: 'Olive Owner',
  templateId: 100,
  templateName: 'NDA',
  senderId: 20,
  senderName: 'Sam Sender',
  signRequestId: 1000,
  signRequestName: 'NDA for Ada',
  participantId: 5,
  participantName: 'Ada Lovelace',
  roleId: 7,
  roleName: 'Signer',
} as const satisfies { readonly [M in MemberName]: PlainValue<M> };

/** Throws the error for an override the decoder refuses (`wire` is the event as built). */
export type BuildFailure = (
  message: string,
  wire: Readonly<Record<string, unknown>>,
  error: DecodeError,
) => never;

/** The signature of `buildEvent` (of `signfold/testing` and of `signfold/core`). */
export type BuildEvent = <T extends EventType>(
  type: T,
  overrides?: EventOverrides<T>,
) => EventOf<T>;

/** Builds one event type from overrides. */
export type Builder<T extends EventType> = (overrides?: EventOverrides<T>) => EventOf<T>;

/** One builder per event type, named after it in camel case. */
export interface EventBuilders {
  readonly templateActivated: Builder<'template-activated'>;
  readonly templateInactivated: Builder<'template-inactivated'>;
  readonly templateDeleted: Builder<'template-deleted'>;
  readonly signRequestSent: Builder<'sign-request-sent'>;
  readonly signRequestCompleted: Builder<'sign-request-completed'>;
  readonly signRequestDeclined: Builder<'sign-request-declined'>;
  readonly signRequestDeleted: Builder<'sign-request-deleted'>;
  readonly participantSent: Builder<'participant-sent'>;
  readonly participantViewed: Builder<'participant-viewed'>;
  readonly participantDownloaded: Builder<'participant-downloaded'>;
  readonly participantSigned: Builder<'participant-signed'>;
  readonly participantDeclined: Builder<'participant-declined'>;
}

/** `buildEvent` reporting an invalid override through `fail`. */
export const eventBuilder =
  (fail: BuildFailure): BuildEvent =>
  <T extends EventType>(type: T, overrides: EventOverrides<T> = {}): EventOf<T> => {
    const given = overrides as Readonly<Record<string, string | number | undefined>>;
    const wire: Record<string, unknown> = { type };
    for (const name of EVENT_MEMBERS[type]) wire[name] = given[name] ?? EVENT_DEFAULTS[name];
    const decoded = decodeEvent(wire);
    if (decoded.isErr()) {
      return fail(
        `cannot build a ${type} event: ${formatDecodeError(decoded.error)}`,
        wire,
        decoded.error,
      );
    }
    return decoded.value as EventOf<T>;
  };

/** The builders of every event type over one `buildEvent`. */
export const eventBuildersOf = (build: BuildEvent): EventBuilders => {
  const builder =
    <T extends EventType>(type: T): Builder<T> =>
    (overrides) =>
      build(type, overrides);
  return {
    templateActivated: builder('template-activated'),
    templateInactivated: builder('template-inactivated'),
    templateDeleted: builder('template-deleted'),
    signRequestSent: builder('sign-request-sent'),
    signRequestCompleted: builder('sign-request-completed'),
    signRequestDeclined: builder('sign-request-declined'),
    signRequestDeleted: builder('sign-request-deleted'),
    participantSent: builder('participant-sent'),
    participantViewed: builder('participant-viewed'),
    participantDownloaded: builder('participant-downloaded'),
    participantSigned: builder('participant-signed'),
    participantDeclined: builder('participant-declined'),
  };
};
