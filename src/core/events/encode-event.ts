import { EVENT_MEMBERS, WIRE_PARTICIPANT_NAME } from './event-members.js';
import type { SignEvent } from './sign-event.js';

/** An event as the service publishes it on the wire. */
export interface WireEvent {
  readonly type: SignEvent['type'];
  readonly [member: string]: string | number;
}

/**
 * Produces the wire object the service would publish for an event: members in
 * the order of the event shapes of docs/service-interface.md, and the
 * participant name spelled `partcipantName`, as the service sends it.
 * `decodeEvent(encodeEvent(e))` equals `e`.
 */
export const encodeEvent = (event: SignEvent): WireEvent => {
  const source = event as unknown as Record<string, string | number>;
  const wire: Record<string, string | number> = { type: event.type };
  for (const name of EVENT_MEMBERS[event.type]) {
    const value = source[name];
    if (value === undefined) continue;
    wire[name === 'participantName' ? WIRE_PARTICIPANT_NAME : name] = value;
  }
  return wire as WireEvent;
};
