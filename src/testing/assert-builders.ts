/**
 * The event builders of `signfold/testing`: an invalid override throws a
 * `node:assert` `AssertionError`, which every Node test runner reports as a
 * failed assertion, with the event as built in `actual`.
 */
import { AssertionError } from 'node:assert';
import {
  type BuildEvent,
  type EventBuilders,
  eventBuilder,
  eventBuildersOf,
} from '../core/builders/event-builders.js';

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
export const buildEvent: BuildEvent = eventBuilder((message, wire) => {
  throw new AssertionError({ message, actual: wire, operator: 'buildEvent' });
});

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
export const events: EventBuilders = eventBuildersOf(buildEvent);
