/**
 * The events a repair stands for. When an observation moves a request or a
 * participant forward, a delivery was lost: reactors are handed the event
 * that delivery would have carried, rebuilt from the projection after the
 * repair, so a reactor written against events reacts to a repair as it would
 * have to the event ("a request repaired to completed fires the completion
 * effect once").
 */
import { decodeEvent } from '../events/decode-event.js';
import { EVENT_MEMBERS, type EventType, type MemberName } from '../events/event-members.js';
import type { SignEvent } from '../events/sign-event.js';
import type { ParticipantId } from '../ids.js';
import type { ParticipantView, SignRequestView } from '../projections/records.js';

/** A sign request and its participants, as the projection holds them. */
export interface RequestImage {
  readonly signRequest: SignRequestView | undefined;
  readonly participants: ReadonlyMap<ParticipantId, ParticipantView>;
}

/** What {@link repairEvents} found: the events, and the transitions no event could be rebuilt for. */
export interface RepairEvents {
  readonly events: readonly SignEvent[];
  /** One line per transition left out, naming the member the projection does not know. */
  readonly unrebuilt: readonly string[];
}

const REQUEST_EVENTS: Partial<Record<SignRequestView['status'], EventType>> = {
  sent: 'sign-request-sent',
  completed: 'sign-request-completed',
  declined: 'sign-request-declined',
};

const PARTICIPANT_EVENTS: Partial<Record<ParticipantView['status'], EventType>> = {
  viewed: 'participant-viewed',
  signed: 'participant-signed',
  declined: 'participant-declined',
};

const memberOf = (
  name: MemberName,
  request: SignRequestView,
  participant: ParticipantView | undefined,
): unknown => {
  switch (name) {
    case 'signRequestId':
      return request.id;
    case 'signRequestName':
      return request.name;
    case 'participantId':
      return participant?.id;
    case 'participantName':
      return participant?.name;
    case 'roleId':
      return participant?.roleId;
    case 'roleName':
      return participant?.roleName;
    default:
      return request[name];
  }
};

const build = (
  type: EventType,
  request: SignRequestView,
  participant: ParticipantView | undefined,
  events: SignEvent[],
  unrebuilt: string[],
): void => {
  const wire: Record<string, unknown> = { type };
  for (const name of EVENT_MEMBERS[type]) {
    const value = memberOf(name, request, participant);
    if (value === undefined || value === null) {
      const who = participant === undefined ? '' : ` for participant ${participant.id}`;
      unrebuilt.push(`${type}${who}: the projection does not know ${name}`);
      return;
    }
    wire[name] = value;
  }
  // Built from records the reducers wrote, so it decodes; checked all the same, never trusted.
  const decoded = decodeEvent(wire);
  if (decoded.isOk()) events.push(decoded.value);
  else unrebuilt.push(`${type}: ${decoded.error.message}`);
};

/**
 * The events a repair stands for, from the request as it was (`before`) and
 * as the repair left it (`after`): for each participant in id order, a
 * `participant-sent` when it is new and the event of its new status when it
 * moved; then the request's own event when its status moved. A transition
 * whose event needs a member the projection does not know (a request known
 * only from the API has no sender, owner or template) is listed in
 * `unrebuilt` instead. Pure.
 */
export const repairEvents = (before: RequestImage, after: RequestImage): RepairEvents => {
  const events: SignEvent[] = [];
  const unrebuilt: string[] = [];
  const request = after.signRequest;
  if (request === undefined) return { events, unrebuilt };
  const ids = [...after.participants.keys()].sort((a, b) => a - b);
  for (const id of ids) {
    const now = after.participants.get(id) as ParticipantView;
    const was = before.participants.get(id);
    if (was === undefined) build('participant-sent', request, now, events, unrebuilt);
    const moved = was === undefined ? now.status !== 'sent' : was.status !== now.status;
    const type = PARTICIPANT_EVENTS[now.status];
    if (moved && type !== undefined) build(type, request, now, events, unrebuilt);
  }
  const status = request.status;
  if (before.signRequest?.status !== status) {
    const type = REQUEST_EVENTS[status];
    if (type !== undefined) build(type, request, undefined, events, unrebuilt);
  }
  return { events, unrebuilt };
};
