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
import {
  EVENT_MEMBERS,
  EVENT_TYPES,
  type EventType,
  type MemberName,
} from '../events/event-members.js';
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

/** A kebab-case event type as the name of its builder: `sign-request-sent` → `signRequestSent`. */
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/**
 * One builder per event type, named after it in camel case. Mapped over
 * {@link EventType}, so a new event type gets its builder without a list here.
 */
export type EventBuilders = { readonly [T in EventType as CamelCase<T>]: Builder<T> };

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

const camelCase = <T extends EventType>(type: T): CamelCase<T> =>
  type.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()) as CamelCase<T>;

/** The builders of every event type over one `buildEvent`. */
export const eventBuildersOf = (build: BuildEvent): EventBuilders => {
  const builder =
    <T extends EventType>(type: T): Builder<T> =>
    (overrides) =>
      build(type, overrides);
  // Built from EVENT_TYPES, as EventBuilders is from EventType: neither lists the types by hand.
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [camelCase(type), builder(type)]),
  ) as EventBuilders;
};
