// @ts-check
/**
 * `examples/sign-request.json`: the representation (spec §2) the service would
 * return for one completed sign request of the log, untouched by insertions.
 */
import { templateOf } from './example-stream.js';

/** @typedef {import('../../bench/stream/ndjson-output.js').Envelope} Envelope */
/** @typedef {import('../../bench/stream/catalog.js').Template} Template */
/** @typedef {import('./example-stream.js').ExampleStream} ExampleStream */
/** @typedef {import('./example-stream.js').RequestInfo} RequestInfo */
/** @typedef {import('./example-stream.js').StreamEvent} StreamEvent */

/** A 1×1 PNG (8-bit grey + alpha, one transparent pixel), base64. */
const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/**
 * An address made of a name: accents dropped, lower case, dots between words.
 * @param {string} name
 */
const email = (name) =>
  `${name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z -]/g, '')
    .trim()
    .replace(/ +/g, '.')}@example.com`;

/**
 * @typedef {{ id: number, name: string | undefined, status: 'Completed',
 *   formType: Template['formType'], participants: object[], savedTime: string,
 *   fields: object[] }} SignRequestJson
 * @typedef {{ chosen: RequestInfo, template: Template, signRequest: SignRequestJson }}
 *   SignRequestExample
 */

/**
 * The first two-participant, completed, never deleted sign request from 30 % of
 * the stream on that no insertion used, and its representation.
 * @param {ExampleStream} stream
 * @param {ReadonlySet<number>} used the sign requests the insertions concern
 * @param {readonly Envelope[]} envelopeAt the envelope of each clean event
 * @returns {SignRequestExample}
 */
export const signRequestExample = (stream, used, envelopeAt) => {
  const chosen = stream.requestList.find(
    (q) =>
      !used.has(q.id) &&
      q.first >= stream.events.length * 0.3 &&
      q.completed >= 0 &&
      q.deleted < 0 &&
      q.participants.size === 2,
  );
  if (chosen === undefined) throw new Error('no sign request for sign-request.json');
  const completed = /** @type {StreamEvent} */ (stream.events[chosen.completed]);
  const template = templateOf(stream, chosen);
  const fieldIdOf = (/** @type {number} */ roleId) => chosen.id * 10 + (roleId % 10);
  const savedAt = envelopeAt[chosen.completed]?.receivedAt ?? '';
  const signRequest = {
    id: chosen.id,
    name: completed.signRequestName,
    status: /** @type {const} */ ('Completed'),
    formType: template.formType,
    participants: [...chosen.participants.entries()].map(([id, p], k) => {
      const e = /** @type {StreamEvent} */ (p.events[0]);
      const role = template.roles.find((x) => x.id === e.roleId);
      if (role === undefined) throw new Error('role not in template');
      const name = e.partcipantName ?? '';
      return {
        id,
        name,
        email: email(name),
        status: 'Signed',
        role: { id: role.id, name: role.name, sequence: role.sequence },
        fieldData: [
          {
            id: chosen.id * 100 + 50 + k + 1,
            fieldId: fieldIdOf(role.id),
            imageContent: PNG_1X1,
            imageMimetype: 'image/png',
          },
        ],
      };
    }),
    savedTime: `${savedAt.slice(0, 10)} ${savedAt.slice(11, 19)}`,
    fields: template.roles
      .filter((role) =>
        [...chosen.participants.values()].some((p) => p.events[0]?.roleId === role.id),
      )
      .map((role) => ({
        id: fieldIdOf(role.id),
        roleId: role.id,
        required: true,
        isMasked: false,
        type: 'signature',
      })),
  };
  return { chosen, template, signRequest };
};
