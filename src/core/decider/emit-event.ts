import { err, ok, type Result } from 'neverthrow';
import { formatDecodeError } from '../decode-error.js';
import { decodeEvent } from '../events/decode-event.js';
import {
  EVENT_MEMBERS,
  type EventType,
  type MemberName,
  WIRE_PARTICIPANT_NAME,
} from '../events/event-members.js';
import type { EventOf } from '../events/sign-event.js';

/** The values an event may take its members from: plain numbers and strings. */
export type Facts = { readonly [M in MemberName]?: string | number };

/**
 * The event of `type` the service emits, with exactly the members §6.2 lists
 * for it, in the order of §6.3 and with the producer's `partcipantName`, taken
 * from `facts`; decoded by the real decoder (strictly), so the decider can
 * emit nothing a receiver refuses. Err: the decoder's reason.
 */
export const emitEvent = <T extends EventType>(
  type: T,
  facts: Facts,
): Result<EventOf<T>, string> => {
  const wire: Record<string, string | number | undefined> = { type };
  for (const name of EVENT_MEMBERS[type]) {
    wire[name === 'participantName' ? WIRE_PARTICIPANT_NAME : name] = facts[name];
  }
  const decoded = decodeEvent(wire, { strict: true });
  return decoded.isOk()
    ? ok(decoded.value as EventOf<T>)
    : err(`${type}: ${formatDecodeError(decoded.error)}`);
};
