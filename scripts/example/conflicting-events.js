// @ts-check
/**
 * The conflicts of the example log: well-formed events that the status rules
 * reject, one per kind of conflict. None repeats an earlier event, so none can
 * be taken for an (idempotent) redelivery.
 */
import {
  participantEvent,
  participantEventT,
  requestEventT,
} from '../../bench/stream/wire-events.js';
import { EXAMPLE } from './example-stream.js';
import { withMembers } from './insertion-sites.js';
import { participantMembers, requestMembers } from './wire-members.js';

/** @typedef {import('./example-stream.js').ExampleStream} ExampleStream */
/** @typedef {import('./example-stream.js').RequestInfo} RequestInfo */
/** @typedef {import('./example-stream.js').StreamEvent} StreamEvent */
/** @typedef {import('./insertion-sites.js').Insert} Insert */
/** @typedef {import('./insertion-sites.js').InsertionSites} InsertionSites */

/**
 * The participants of `request` that have (or, with `has` false, lack) an
 * event of `type`, in order of their first event.
 * @param {RequestInfo} request
 * @param {string} type
 */
const participantsWith = (request, type, has = true) =>
  [...request.participants.values()].filter((p) => p.events.some((e) => e.type === type) === has);

/**
 * The six conflicts, in this order, their requests marked used in `sites`.
 * @param {ExampleStream} stream
 * @param {InsertionSites} sites
 * @returns {Insert[]}
 */
export const conflictingEvents = (stream, sites) => {
  const { events } = stream;
  const eventAt = (/** @type {number} */ i) => /** @type {StreamEvent} */ (events[i]);
  /** @type {Insert[]} */
  const conflicts = [];
  {
    const r = sites.request(0.12, (q) => q.deleted < 0 && q.completed >= 0);
    const views = events
      .map((e, i) => (e.signRequestId === r.id && e.type === 'participant-viewed' ? i : -1))
      .filter((i) => i >= 0);
    const after = /** @type {number} */ (views[Math.floor(views.length / 2)]);
    const other = (r.companyId % EXAMPLE.companies) + 1;
    conflicts.push({
      after,
      signRequestId: r.id,
      event: withMembers(eventAt(after), { companyId: other }),
      kind: 'conflict',
      code: 'company-mismatch',
      what: `\`participant-viewed\` for existing sign request ${r.id} (company ${r.companyId}) claiming \`companyId\` ${other}`,
    });
  }
  {
    const r = sites.request(0.28, (q) => q.completed >= 0 && q.deleted < 0 && q.sent >= 0);
    const t = stream.catalog[r.companyId - 1]?.templates.find((x) => x.id !== r.templateId);
    if (t === undefined) throw new Error('need two templates per company');
    conflicts.push({
      after: r.sent,
      signRequestId: r.id,
      event: withMembers(eventAt(r.sent), { templateId: t.id, templateName: t.name }),
      kind: 'conflict',
      code: 'template-changed',
      what: `\`sign-request-sent\` re-sending sign request ${r.id} (still \`sent\`) with \`templateId\` ${t.id} instead of ${r.templateId}`,
    });
  }
  {
    const r = sites.request(0.44, (q) => q.completed >= 0 && q.deleted < 0);
    const [firstParticipant] = r.participants.values();
    const { role } = participantMembers(
      stream,
      r,
      /** @type {StreamEvent} */ (firstParticipant?.events[0]),
    );
    const id = stream.maxParticipantId + 1;
    conflicts.push({
      after: r.last,
      signRequestId: r.id,
      event: participantEventT('participant-sent', requestMembers(stream, r), {
        id,
        name: 'Nora Lindqvist',
        role,
      }),
      kind: 'conflict',
      code: 'sent-after-completed',
      what: `\`participant-sent\` of a new participant ${id} on sign request ${r.id}, which is already \`completed\``,
    });
  }
  {
    const declined = (/** @type {RequestInfo} */ q) =>
      participantsWith(q, 'participant-declined').length > 0;
    const r = sites.request(0.58, (q) => q.declined >= 0 && q.deleted < 0 && declined(q));
    const [decliner] = participantsWith(r, 'participant-declined');
    const d = participantMembers(stream, r, /** @type {StreamEvent} */ (decliner?.events[0]));
    conflicts.push({
      after: r.last,
      signRequestId: r.id,
      event: participantEventT('participant-signed', requestMembers(stream, r), d),
      kind: 'conflict',
      code: 'signed-after-declined',
      what: `\`participant-signed\` of participant ${d.id}, who declined sign request ${r.id} (now \`declined\`)`,
    });
  }
  {
    const neverDownloaded = (/** @type {RequestInfo} */ q) =>
      participantsWith(q, 'participant-downloaded', false).length > 0;
    const r = sites.request(0.7, (q) => q.deleted >= 0 && q.completed >= 0 && neverDownloaded(q));
    const [viewer] = participantsWith(r, 'participant-downloaded', false);
    const p = participantMembers(stream, r, /** @type {StreamEvent} */ (viewer?.events[0]));
    const event = participantEvent('participant-downloaded', requestMembers(stream, r), p);
    if (stream.seen.has(JSON.stringify(event))) throw new Error('not a new event');
    conflicts.push({
      after: r.last,
      signRequestId: r.id,
      event,
      kind: 'conflict',
      code: 'after-deleted',
      what: `\`participant-downloaded\` by participant ${p.id} of sign request ${r.id}, which was deleted`,
      deletedAt: r.deleted,
    });
  }
  {
    const r = sites.request(0.84, (q) => q.declined >= 0 && q.deleted < 0);
    conflicts.push({
      after: r.last,
      signRequestId: r.id,
      event: requestEventT('sign-request-completed', requestMembers(stream, r)),
      kind: 'conflict',
      code: 'completed-after-declined',
      what: `\`sign-request-completed\` for sign request ${r.id}, which is already \`declined\` (moving between final statuses)`,
    });
  }
  for (const x of conflicts) {
    if (stream.seen.has(JSON.stringify(x.event))) {
      throw new Error(`conflict ${x.code} repeats an earlier event`);
    }
  }
  return conflicts;
};
