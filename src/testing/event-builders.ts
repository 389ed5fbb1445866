/**
 * Event builders for tests: one per event type, valid by default, where a
 * test states only the members that matter. Every event goes through the
 * real decoder, so a builder can never produce what `decodeEvent` refuses.
 */
import { AssertionError } from 'node:assert';
import {
  decodeEvent,
  EVENT_MEMBERS,
  type EventOf,
  type EventType,
  formatDecodeError,
  type MemberName,
} from '../index.js';

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

/**
 * Builds a valid event of `type`: the members its type carries, from
 * {@link EVENT_DEFAULTS} unless overridden. Throws an `AssertionError` if an
 * override makes it invalid (say, a negative id), naming the member.
 *
 * @example
 * ```ts
 * import { buildEvent } from 'signfold/testing';
 *
 * const signed = buildEvent('participant-signed', { signRequestId: 42, participantId: 7 });
 * console.log(signed.type, signed.participantName); // participant-signed Ada Lovelace
 * ```
 */
export const buildEvent = <T extends EventType>(
  type: T,
  overrides: EventOverrides<T> = {},
): EventOf<T> => {
  const given = overrides as Readonly<Record<string, string | number | undefined>>;
  const wire: Record<string, unknown> = { type };
  for (const name of EVENT_MEMBERS[type]) wire[name] = given[name] ?? EVENT_DEFAULTS[name];
  const decoded = decodeEvent(wire);
  if (decoded.isErr()) {
    throw new AssertionError({
      message: `cannot build a ${type} event: ${formatDecodeError(decoded.error)}`,
      actual: wire,
      operator: 'buildEvent',
    });
  }
  return decoded.value as EventOf<T>;
};

type Builder<T extends EventType> = (overrides?: EventOverrides<T>) => EventOf<T>;

const builder =
  <T extends EventType>(type: T): Builder<T> =>
  (overrides) =>
    buildEvent(type, overrides);

/**
 * One builder per event type, named after it in camel case.
 *
 * @example
 * ```ts
 * import { events } from 'signfold/testing';
 *
 * const sent = events.signRequestSent({ signRequestId: 42 });
 * const signed = events.participantSigned({ signRequestId: 42, participantId: 7 });
 * ```
 */
export const events = {
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
} as const;
