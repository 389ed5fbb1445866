/**
 * The event builders of `signfold/core`: the same builders as
 * `signfold/testing`'s, for code that runs without Node (a browser, an edge
 * function), where there is no `node:assert`. An invalid override throws a
 * plain `Error`.
 */
import {
  type BuildEvent,
  type EventBuilders,
  eventBuilder,
  eventBuildersOf,
} from './event-builders.js';

/**
 * Builds a valid event of `type`: the members its type carries, from
 * {@link EVENT_DEFAULTS} unless overridden. Throws an `Error` if an override
 * makes it invalid (say, a negative id), naming the member; its `cause` is
 * the decoder's `DecodeError`.
 *
 * @example
 * ```ts
 * import { buildEvent } from 'signfold/testing';
 *
 * const signed = buildEvent('participant-signed', { signRequestId: 42, participantId: 7 });
 * console.log(signed.type, signed.participantName); // participant-signed Ada Lovelace
 * ```
 */
export const buildEvent: BuildEvent = eventBuilder((message, _wire, error) => {
  throw new Error(message, { cause: error });
});

/**
 * One builder per event type, named after it in camel case (see
 * {@link buildEvent} for what an invalid override throws).
 *
 * @example
 * ```ts
 * import { fold, initialState } from 'signfold';
 * import { events } from 'signfold/testing';
 *
 * const { state } = fold(initialState(), [events.signRequestSent({ signRequestId: 42 })]);
 * console.log(state.signRequests.size); // 1
 * ```
 */
export const events: EventBuilders = eventBuildersOf(buildEvent);
