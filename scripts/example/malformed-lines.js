// @ts-check
/**
 * The malformed lines of the example log, one per rejection code the decoder
 * gives a line: corrupted copies of a nearby event, so that skipping them
 * leaves a clean log.
 */
import { requestEventT } from '../../bench/stream/wire-events.js';
import { withMembers } from './insertion-sites.js';
import { requestMembers } from './wire-members.js';

/** @typedef {import('./example-stream.js').ExampleStream} ExampleStream */
/** @typedef {import('./example-stream.js').StreamEvent} StreamEvent */
/** @typedef {import('./insertion-sites.js').Insert} Insert */
/** @typedef {import('./insertion-sites.js').InsertionSites} InsertionSites */

/**
 * The six malformed lines, in stream order, their requests marked used in `sites`.
 * @param {ExampleStream} stream
 * @param {InsertionSites} sites
 * @returns {Insert[]}
 */
export const malformedLines = (stream, sites) => {
  /**
   * The first fitting event at or after `fraction` of the stream, with its index.
   * @param {number} fraction
   * @param {string} type
   */
  const pick = (fraction, type) => {
    const after = sites.event(fraction, (e) => e.type === type);
    const event = /** @type {StreamEvent} */ (stream.events[after]);
    return { after, event, signRequestId: /** @type {number} */ (event.signRequestId) };
  };
  /** @type {Insert[]} */
  const lines = [];
  {
    const { event: e, ...at } = pick(0.08, 'participant-signed');
    lines.push({
      ...at,
      event: e,
      kind: 'malformed',
      code: 'invalid-json',
      what: `a redelivery of the \`participant-signed\` of sign request ${e.signRequestId} cut off mid-line: the line is not valid JSON at all`,
      broken: true,
    });
  }
  {
    const { event: e, ...at } = pick(0.22, 'sign-request-sent');
    lines.push({
      ...at,
      event: withMembers(e, { type: 'sign-request-expired' }),
      kind: 'malformed',
      code: 'unknown-type',
      what: `\`"type":"sign-request-expired"\` (not one of the 12 types), otherwise a copy of the \`sign-request-sent\` of sign request ${e.signRequestId}`,
    });
  }
  {
    const { event: e, ...at } = pick(0.36, 'participant-viewed');
    lines.push({
      ...at,
      event: withMembers(e, { signRequestId: String(e.signRequestId) }),
      kind: 'malformed',
      code: 'wrong-type',
      what: `\`participant-viewed\` with the id as a numeric string, \`"signRequestId":"${e.signRequestId}"\``,
    });
  }
  {
    const { event: e, ...at } = pick(0.5, 'participant-signed');
    const { roleId: _, ...withoutRoleId } = e;
    lines.push({
      ...at,
      event: withoutRoleId,
      kind: 'malformed',
      code: 'missing-member',
      what: `\`participant-signed\` of participant ${e.participantId} (sign request ${e.signRequestId}) without its required \`roleId\``,
    });
  }
  {
    const { event: e, ...at } = pick(0.64, 'sign-request-declined');
    const request = /** @type {import('./example-stream.js').RequestInfo} */ (
      stream.requests.get(at.signRequestId)
    );
    lines.push({
      ...at,
      // A declined event as the builder of sent and completed ones makes it: with template members.
      event: requestEventT(e.type, requestMembers(stream, request)),
      kind: 'malformed',
      code: 'member-not-allowed',
      what: `\`sign-request-declined\` of sign request ${e.signRequestId} carrying \`templateId\`/\`templateName\`, which that type does not carry`,
    });
  }
  {
    const { event: e, ...at } = pick(0.78, 'participant-viewed');
    const [first, ...rest] = String(e.partcipantName).split(' ');
    const reversed = `${rest.join(' ')}, ${first}`;
    // The other spelling right after the usual one, with another value.
    const event = Object.fromEntries(
      Object.entries(e).flatMap(([k, v]) =>
        k === 'partcipantName'
          ? [
              [k, v],
              ['participantName', reversed],
            ]
          : [[k, v]],
      ),
    );
    lines.push({
      ...at,
      event,
      kind: 'malformed',
      code: 'conflicting-spelling',
      what: `\`participant-viewed\` carrying both spellings with different values: \`partcipantName\` "${e.partcipantName}", \`participantName\` "${reversed}"`,
    });
  }
  return lines;
};
