// @ts-check
/**
 * Builders of wire events in the member order of spec §6.3 (`partcipantName`
 * as on the wire), and which neighbouring events may be delivered swapped.
 */

/**
 * @typedef {import('./catalog.js').User} User
 * @typedef {import('./catalog.js').Role} Role
 * @typedef {import('./catalog.js').Template} Template
 */

/**
 * @param {string} type
 * @param {Template} t
 */
export const templateEvent = (type, t) => ({
  type,
  companyId: t.companyId,
  templateId: t.id,
  templateName: t.name,
  ownerId: t.owner.id,
  ownerName: t.owner.name,
});

/**
 * What the builders read of a sign request and of a participant: the
 * generator's own records ({@link Req}, {@link Part}) carry more, and
 * `scripts/generate-example.js` rebuilds these from a stream it generated.
 * @typedef {{ id: number, name: string, companyId: number, template: Template, owner: User,
 *   sender: User }} RequestMembers
 * @typedef {{ id: number, name: string, role: Role }} ParticipantMembers
 */

/**
 * @typedef {ParticipantMembers & { stage: number, viewsLeft: number, viewed: boolean,
 *   download: boolean, declines: boolean }} Part
 * @typedef {RequestMembers & { parts: Part[], phase: number, g0: number, g1: number,
 *   nextToSend: number, groupLeft: number, declined: boolean, deleteAfter: number,
 *   deleteAtEnd: boolean, done: boolean, seq: number }} Req
 */

/**
 * A sign-request event with template members (sent, completed).
 * @param {string} type
 * @param {RequestMembers} r
 */
export const requestEventT = (type, r) => ({
  type,
  companyId: r.companyId,
  signRequestId: r.id,
  signRequestName: r.name,
  templateId: r.template.id,
  templateName: r.template.name,
  senderId: r.sender.id,
  senderName: r.sender.name,
  ownerId: r.owner.id,
  ownerName: r.owner.name,
});

/**
 * A sign-request event without template members (declined, deleted).
 * @param {string} type
 * @param {RequestMembers} r
 */
export const requestEvent = (type, r) => ({
  type,
  companyId: r.companyId,
  signRequestId: r.id,
  signRequestName: r.name,
  senderId: r.sender.id,
  senderName: r.sender.name,
  ownerId: r.owner.id,
  ownerName: r.owner.name,
});

/**
 * A participant event with template members (sent, signed).
 * @param {string} type
 * @param {RequestMembers} r
 * @param {ParticipantMembers} p
 */
export const participantEventT = (type, r, p) => ({
  type,
  companyId: r.companyId,
  signRequestId: r.id,
  signRequestName: r.name,
  templateId: r.template.id,
  templateName: r.template.name,
  participantId: p.id,
  partcipantName: p.name,
  roleId: p.role.id,
  roleName: p.role.name,
  senderId: r.sender.id,
  senderName: r.sender.name,
  ownerId: r.owner.id,
  ownerName: r.owner.name,
});

/**
 * A participant event without template members (viewed, downloaded, declined).
 * @param {string} type
 * @param {RequestMembers} r
 * @param {ParticipantMembers} p
 */
export const participantEvent = (type, r, p) => ({
  type,
  companyId: r.companyId,
  signRequestId: r.id,
  signRequestName: r.name,
  participantId: p.id,
  partcipantName: p.name,
  roleId: p.role.id,
  roleName: p.role.name,
  senderId: r.sender.id,
  senderName: r.sender.name,
  ownerId: r.owner.id,
  ownerName: r.owner.name,
});

/**
 * How an event may be reordered with a neighbour of the same sign request:
 * 0 = never (sign-request events, participant-sent), 1 = view/download, 2 = signed,
 * 3 = declined (never either: kept next to the sign-request-declined it causes).
 * @type {Record<string, number>}
 */
const SWAP_KIND = {
  'participant-viewed': 1,
  'participant-downloaded': 1,
  'participant-signed': 2,
  'participant-declined': 3,
};

/**
 * Whether delivering `b` before `a` (a came first) keeps the stream conflict-free.
 * @param {any} a
 * @param {any} b
 */
export const canSwap = (a, b) => {
  const ra = a.signRequestId;
  const rb = b.signRequestId;
  if (ra === undefined || rb === undefined) return false; // template events stay put
  if (ra !== rb) return true; // different sign requests are independent
  const ka = SWAP_KIND[a.type] ?? 0;
  const kb = SWAP_KIND[b.type] ?? 0;
  if (ka === 0 || kb === 0 || ka === 3 || kb === 3) return false;
  if (a.participantId !== b.participantId) return true;
  // Same participant: two views/downloads, or a view/download overtaken by the
  // signature (a view after signing is counted and does not move the status back).
  return ka === 1 && (kb === 1 || kb === 2);
};
