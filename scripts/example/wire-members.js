// @ts-check
/**
 * The members of a sign request and of a participant as the wire-event builders
 * of `bench/stream/wire-events.js` read them, rebuilt from the generated stream,
 * so that an inserted event is built as the generator builds its own.
 */

/** @typedef {import('../../bench/stream/wire-events.js').RequestMembers} RequestMembers */
/** @typedef {import('../../bench/stream/wire-events.js').ParticipantMembers} ParticipantMembers */
/** @typedef {import('./example-stream.js').ExampleStream} ExampleStream */
/** @typedef {import('./example-stream.js').RequestInfo} RequestInfo */
/** @typedef {import('./example-stream.js').StreamEvent} StreamEvent */

import { templateOf } from './example-stream.js';

/**
 * The sign request as its `sign-request-sent` names it (every request has one).
 * @param {ExampleStream} stream
 * @param {RequestInfo} request
 * @returns {RequestMembers}
 */
export const requestMembers = (stream, request) => {
  const sent = stream.events[request.sent];
  if (sent === undefined) throw new Error(`sign request ${request.id} was never sent`);
  return {
    id: request.id,
    name: sent.signRequestName ?? '',
    companyId: request.companyId,
    template: templateOf(stream, request),
    sender: { id: sent.senderId ?? 0, name: sent.senderName ?? '' },
    owner: { id: sent.ownerId ?? 0, name: sent.ownerName ?? '' },
  };
};

/**
 * A participant as its first event names it, with its role from the template.
 * @param {ExampleStream} stream
 * @param {RequestInfo} request
 * @param {StreamEvent} event an event of the participant
 * @returns {ParticipantMembers}
 */
export const participantMembers = (stream, request, event) => {
  const role = templateOf(stream, request).roles.find((x) => x.id === event.roleId);
  if (role === undefined || event.participantId === undefined) {
    throw new Error(`no participant in event ${JSON.stringify(event)}`);
  }
  return { id: event.participantId, name: event.partcipantName ?? '', role };
};
