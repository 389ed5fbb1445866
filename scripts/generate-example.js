// @ts-check
/**
 * Writes the example files in `examples/`:
 *
 * - `events.ndjson`: a deterministic envelope-format event log (about 4,000 events,
 *   4 companies, 12 templates, 400 sign requests) into which a few malformed lines
 *   and a few genuine conflicts are inserted at deterministic positions;
 * - `sign-request.json`: the spec §2 representation of one completed sign request
 *   of that log;
 * - `README.md`: what the files hold and what was inserted where (generated here so
 *   it stays true).
 *
 * Usage: `node scripts/generate-example.js [out-dir]` (no build needed; `out-dir`
 * defaults to `examples/`). The output is byte-identical from run to run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  envelopes,
  generateEvents,
  templateCatalog,
  writeNdjson,
} from '../bench/generate-stream.js';

const SEED = 20250612;
const COMPANIES = 4;
const TEMPLATES_PER_COMPANY = 3;
const SIGN_REQUESTS = 400;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = process.argv[2] === undefined ? join(root, 'examples') : resolve(process.argv[2]);

/** A 1×1 PNG (8-bit grey + alpha, one transparent pixel), base64. */
const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** @typedef {Record<string, any>} Ev */

// ---------------------------------------------------------------------------
// 1. The clean stream, and what each sign request went through
// ---------------------------------------------------------------------------

/** @type {import('../bench/generate-stream.js').GenerateStats} */
const stats = { events: 0, duplicates: 0, reorders: 0, signRequests: 0, byType: {} };
/** @type {Ev[]} */
const events = [
  ...generateEvents({
    seed: SEED,
    signRequests: SIGN_REQUESTS,
    companies: COMPANIES,
    templatesPerCompany: TEMPLATES_PER_COMPANY,
    stats,
  }),
];
const catalog = templateCatalog({
  seed: SEED,
  companies: COMPANIES,
  templatesPerCompany: TEMPLATES_PER_COMPANY,
});

/**
 * @typedef {{ id: number, companyId: number, templateId: number, first: number, last: number,
 *   sent: number, completed: number, declined: number, deleted: number,
 *   participants: Map<number, { first: number, events: Ev[] }> }} ReqInfo
 */
/** @type {Map<number, ReqInfo>} */
const requests = new Map();
const seen = new Set();
let maxParticipantId = 0;
events.forEach((e, i) => {
  seen.add(JSON.stringify(e));
  const id = e.signRequestId;
  if (id === undefined) return;
  let r = requests.get(id);
  if (r === undefined) {
    r = {
      id,
      companyId: e.companyId,
      templateId: e.templateId,
      first: i,
      last: i,
      sent: -1,
      completed: -1,
      declined: -1,
      deleted: -1,
      participants: new Map(),
    };
    requests.set(id, r);
  }
  r.last = i;
  if (e.type === 'sign-request-sent' && r.sent < 0) r.sent = i;
  if (e.type === 'sign-request-completed' && r.completed < 0) r.completed = i;
  if (e.type === 'sign-request-declined' && r.declined < 0) r.declined = i;
  if (e.type === 'sign-request-deleted' && r.deleted < 0) r.deleted = i;
  if (e.participantId !== undefined) {
    maxParticipantId = Math.max(maxParticipantId, e.participantId);
    let p = r.participants.get(e.participantId);
    if (p === undefined) {
      p = { first: i, events: [] };
      r.participants.set(e.participantId, p);
    }
    p.events.push(e);
  }
});
const requestList = [...requests.values()].sort((a, b) => a.first - b.first);
const N = events.length;
/** Requests already used for an insertion, so that each insertion has one clear cause. */
const used = new Set();

/**
 * The first unused request starting at or after `fraction` of the stream that
 * satisfies `test`.
 * @param {number} fraction
 * @param {(r: ReqInfo) => boolean} test
 * @returns {ReqInfo}
 */
const pickRequest = (fraction, test) => {
  const from = Math.floor(N * fraction);
  const r =
    requestList.find((q) => q.first >= from && !used.has(q.id) && test(q)) ??
    requestList.find((q) => !used.has(q.id) && test(q));
  if (r === undefined) throw new Error(`no request fits at ${fraction}`);
  used.add(r.id);
  return r;
};

/**
 * The first clean event at or after `fraction` of the stream satisfying `test`, of a
 * sign request not used yet (which it then marks used).
 * @param {number} fraction
 * @param {(e: Ev) => boolean} test
 * @returns {number}
 */
const pickEvent = (fraction, test) => {
  for (let i = Math.floor(N * fraction); i < N; i++) {
    const e = /** @type {Ev} */ (events[i]);
    if (test(e) && !used.has(e.signRequestId)) {
      used.add(e.signRequestId);
      return i;
    }
  }
  throw new Error(`no event fits at ${fraction}`);
};

/** @param {number} companyId */
const companyOf = (companyId) => {
  const c = catalog[companyId - 1];
  if (c === undefined) throw new Error(`unknown company ${companyId}`);
  return c;
};

/** @param {Ev} e @param {Record<string, any>} changes the event with members replaced, order kept */
const withMembers = (e, changes) => {
  /** @type {Ev} */
  const out = {};
  for (const [k, v] of Object.entries(e)) out[k] = Object.hasOwn(changes, k) ? changes[k] : v;
  return out;
};

/** @param {Ev} e @param {string} member */
const without = (e, member) => {
  const out = { ...e };
  delete out[member];
  return out;
};

// ---------------------------------------------------------------------------
// 2. Insertions: malformed lines and genuine conflicts
// ---------------------------------------------------------------------------

/**
 * @typedef {{ after: number, event: Ev, kind: 'malformed' | 'conflict', code: string,
 *   what: string, broken?: boolean }} Insert
 */
/** @type {Insert[]} */
const inserts = [];

// Malformed lines: corrupted copies of a nearby event (skipping them leaves a clean log).
{
  const i = pickEvent(0.08, (e) => e.type === 'participant-signed');
  const e = /** @type {Ev} */ (events[i]);
  inserts.push({
    after: i,
    event: e,
    kind: 'malformed',
    code: 'invalid-json',
    what: `a redelivery of the \`participant-signed\` of sign request ${e.signRequestId} cut off mid-line: the line is not valid JSON at all`,
    broken: true,
  });
}
{
  const i = pickEvent(0.22, (e) => e.type === 'sign-request-sent');
  const e = /** @type {Ev} */ (events[i]);
  inserts.push({
    after: i,
    event: withMembers(e, { type: 'sign-request-expired' }),
    kind: 'malformed',
    code: 'unknown-type',
    what: `\`"type":"sign-request-expired"\` (not one of the 12 types), otherwise a copy of the \`sign-request-sent\` of sign request ${e.signRequestId}`,
  });
}
{
  const i = pickEvent(0.36, (e) => e.type === 'participant-viewed');
  const e = /** @type {Ev} */ (events[i]);
  inserts.push({
    after: i,
    event: withMembers(e, { signRequestId: String(e.signRequestId) }),
    kind: 'malformed',
    code: 'wrong-type',
    what: `\`participant-viewed\` with the id as a numeric string, \`"signRequestId":"${e.signRequestId}"\``,
  });
}
{
  const i = pickEvent(0.5, (e) => e.type === 'participant-signed');
  const e = /** @type {Ev} */ (events[i]);
  inserts.push({
    after: i,
    event: without(e, 'roleId'),
    kind: 'malformed',
    code: 'missing-member',
    what: `\`participant-signed\` of participant ${e.participantId} (sign request ${e.signRequestId}) without its required \`roleId\``,
  });
}
{
  const i = pickEvent(0.64, (e) => e.type === 'sign-request-declined');
  const e = /** @type {Ev} */ (events[i]);
  const r = /** @type {ReqInfo} */ (requests.get(e.signRequestId));
  const t = companyOf(r.companyId).templates.find((x) => x.id === r.templateId);
  /** @type {Ev} */
  const bad = {};
  for (const [k, v] of Object.entries(e)) {
    bad[k] = v;
    if (k === 'signRequestName') {
      bad.templateId = r.templateId;
      bad.templateName = t?.name;
    }
  }
  inserts.push({
    after: i,
    event: bad,
    kind: 'malformed',
    code: 'member-not-allowed',
    what: `\`sign-request-declined\` of sign request ${e.signRequestId} carrying \`templateId\`/\`templateName\`, which that type does not carry`,
  });
}
{
  const i = pickEvent(0.78, (e) => e.type === 'participant-viewed');
  const e = /** @type {Ev} */ (events[i]);
  const [first, ...rest] = String(e.partcipantName).split(' ');
  /** @type {Ev} */
  const bad = {};
  for (const [k, v] of Object.entries(e)) {
    bad[k] = v;
    if (k === 'partcipantName') bad.participantName = `${rest.join(' ')}, ${first}`;
  }
  inserts.push({
    after: i,
    event: bad,
    kind: 'malformed',
    code: 'conflicting-spelling',
    what: `\`participant-viewed\` carrying both spellings with different values: \`partcipantName\` "${bad.partcipantName}", \`participantName\` "${bad.participantName}"`,
  });
}

// Conflicts: well-formed events that the status rules reject. None repeats an earlier
// event, so none can be taken for an (idempotent) redelivery.
{
  const r = pickRequest(0.12, (q) => q.deleted < 0 && q.completed >= 0);
  const views = events
    .map((e, i) => (e.signRequestId === r.id && e.type === 'participant-viewed' ? i : -1))
    .filter((i) => i >= 0);
  const i = /** @type {number} */ (views[Math.floor(views.length / 2)]);
  const e = /** @type {Ev} */ (events[i]);
  const other = (r.companyId % COMPANIES) + 1;
  inserts.push({
    after: i,
    event: withMembers(e, { companyId: other }),
    kind: 'conflict',
    code: 'company-mismatch',
    what: `\`participant-viewed\` for existing sign request ${r.id} (company ${r.companyId}) claiming \`companyId\` ${other}`,
  });
}
{
  const r = pickRequest(0.28, (q) => q.completed >= 0 && q.deleted < 0 && q.sent >= 0);
  const e = /** @type {Ev} */ (events[r.sent]);
  const t = companyOf(r.companyId).templates.find((x) => x.id !== r.templateId);
  if (t === undefined) throw new Error('need two templates per company');
  inserts.push({
    after: r.sent,
    event: withMembers(e, { templateId: t.id, templateName: t.name }),
    kind: 'conflict',
    code: 'template-changed',
    what: `\`sign-request-sent\` re-sending sign request ${r.id} (still \`sent\`) with \`templateId\` ${t.id} instead of ${r.templateId}`,
  });
}
{
  const r = pickRequest(0.44, (q) => q.completed >= 0 && q.deleted < 0);
  const e = /** @type {Ev} */ (events[r.completed]);
  const p = /** @type {{events: Ev[]}} */ ([...r.participants.values()][0]).events[0];
  const id = maxParticipantId + 1;
  inserts.push({
    after: r.last,
    event: {
      type: 'participant-sent',
      companyId: e.companyId,
      signRequestId: e.signRequestId,
      signRequestName: e.signRequestName,
      templateId: e.templateId,
      templateName: e.templateName,
      participantId: id,
      partcipantName: 'Nora Lindqvist',
      roleId: p?.roleId,
      roleName: p?.roleName,
      senderId: e.senderId,
      senderName: e.senderName,
      ownerId: e.ownerId,
      ownerName: e.ownerName,
    },
    kind: 'conflict',
    code: 'sent-after-completed',
    what: `\`participant-sent\` of a new participant ${id} on sign request ${r.id}, which is already \`completed\``,
  });
}
{
  const r = pickRequest(
    0.58,
    (q) =>
      q.declined >= 0 &&
      q.deleted < 0 &&
      [...q.participants.values()].some((p) =>
        p.events.some((e) => e.type === 'participant-declined'),
      ),
  );
  const decliner = /** @type {{events: Ev[]}} */ (
    [...r.participants.values()].find((p) =>
      p.events.some((e) => e.type === 'participant-declined'),
    )
  );
  const d = /** @type {Ev} */ (decliner.events.find((e) => e.type === 'participant-declined'));
  const sent = /** @type {Ev} */ (events[r.sent]);
  inserts.push({
    after: r.last,
    event: {
      type: 'participant-signed',
      companyId: d.companyId,
      signRequestId: d.signRequestId,
      signRequestName: d.signRequestName,
      templateId: sent.templateId,
      templateName: sent.templateName,
      participantId: d.participantId,
      partcipantName: d.partcipantName,
      roleId: d.roleId,
      roleName: d.roleName,
      senderId: d.senderId,
      senderName: d.senderName,
      ownerId: d.ownerId,
      ownerName: d.ownerName,
    },
    kind: 'conflict',
    code: 'signed-after-declined',
    what: `\`participant-signed\` of participant ${d.participantId}, who declined sign request ${r.id} (now \`declined\`)`,
  });
}
{
  const r = pickRequest(
    0.7,
    (q) =>
      q.deleted >= 0 &&
      q.completed >= 0 &&
      [...q.participants.values()].some(
        (p) => !p.events.some((e) => e.type === 'participant-downloaded'),
      ),
  );
  const p = /** @type {{events: Ev[]}} */ (
    [...r.participants.values()].find(
      (q) => !q.events.some((e) => e.type === 'participant-downloaded'),
    )
  );
  const v = /** @type {Ev} */ (p.events.find((e) => e.type === 'participant-viewed'));
  const event = withMembers(v, { type: 'participant-downloaded' });
  if (seen.has(JSON.stringify(event))) throw new Error('not a new event');
  inserts.push({
    after: r.last,
    event,
    kind: 'conflict',
    code: 'after-deleted',
    what: `\`participant-downloaded\` by participant ${v.participantId} of sign request ${r.id}, which was deleted (position of the delete given below)`,
  });
}
{
  const r = pickRequest(0.84, (q) => q.declined >= 0 && q.deleted < 0);
  const e = /** @type {Ev} */ (events[r.sent]);
  inserts.push({
    after: r.last,
    event: withMembers(e, { type: 'sign-request-completed' }),
    kind: 'conflict',
    code: 'completed-after-declined',
    what: `\`sign-request-completed\` for sign request ${r.id}, which is already \`declined\` (moving between final statuses)`,
  });
}
for (const x of inserts) {
  if (x.kind === 'conflict' && seen.has(JSON.stringify(x.event))) {
    throw new Error(`conflict ${x.code} repeats an earlier event`);
  }
}

// ---------------------------------------------------------------------------
// 3. Merge, wrap in envelopes, write
// ---------------------------------------------------------------------------

inserts.sort((a, b) => a.after - b.after);
/** @type {{ event: Ev, insert?: Insert }[]} */
const items = [];
{
  let k = 0;
  events.forEach((event, i) => {
    items.push({ event });
    while (k < inserts.length && /** @type {Insert} */ (inserts[k]).after === i) {
      const insert = /** @type {Insert} */ (inserts[k++]);
      items.push({ event: insert.event, insert });
    }
  });
}
/** Envelope of each original event object, to find positions and times. */
const envelopeOf = new Map();
/** @type {Map<Insert, number>} */
const positionOf = new Map();
/** @type {(object | string)[]} */
const lines = [];
{
  let k = 0;
  for (const env of envelopes(
    items.map((x) => x.event),
    { seed: SEED, meanGapMs: 1500 },
  )) {
    const item = /** @type {{ event: Ev, insert?: Insert }} */ (items[k++]);
    if (item.insert === undefined) {
      if (!envelopeOf.has(item.event)) envelopeOf.set(item.event, env);
      lines.push(env);
      continue;
    }
    positionOf.set(item.insert, env.position);
    if (item.insert.broken) {
      const text = JSON.stringify(env);
      lines.push(text.slice(0, text.indexOf('"roleId"') + 12));
    } else lines.push(env);
  }
}
mkdirSync(outDir, { recursive: true });
const written = writeNdjson(join(outDir, 'events.ndjson'), lines);

/** @param {number} index of a clean event */
const positionOfEvent = (index) => envelopeOf.get(events[index])?.position;

// ---------------------------------------------------------------------------
// 4. sign-request.json: one completed sign request of the log (spec §2)
// ---------------------------------------------------------------------------

const chosen = requestList.find(
  (q) =>
    !used.has(q.id) &&
    q.first >= N * 0.3 &&
    q.completed >= 0 &&
    q.deleted < 0 &&
    q.participants.size === 2 &&
    !inserts.some((x) => x.event.signRequestId === q.id),
);
if (chosen === undefined) throw new Error('no sign request for sign-request.json');
const completedEvent = /** @type {Ev} */ (events[chosen.completed]);
const template = companyOf(chosen.companyId).templates.find((t) => t.id === chosen.templateId);
if (template === undefined) throw new Error('template not in catalog');
/** @param {string} name */
const email = (name) =>
  `${name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z -]/g, '')
    .trim()
    .replace(/ +/g, '.')}@example.com`;
const fieldIdOf = (/** @type {number} */ roleId) => chosen.id * 10 + (roleId % 10);
const savedAt = /** @type {string} */ (envelopeOf.get(completedEvent).receivedAt);
const signRequest = {
  id: chosen.id,
  name: completedEvent.signRequestName,
  status: 'Completed',
  formType: template.formType,
  participants: [...chosen.participants.entries()].map(([id, p], k) => {
    const e = /** @type {Ev} */ (p.events[0]);
    const role = template.roles.find((x) => x.id === e.roleId);
    if (role === undefined) throw new Error('role not in template');
    return {
      id,
      name: e.partcipantName,
      email: email(e.partcipantName),
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
writeFileSync(join(outDir, 'sign-request.json'), `${JSON.stringify(signRequest, null, 2)}\n`);

// ---------------------------------------------------------------------------
// 5. README.md and summary
// ---------------------------------------------------------------------------

const malformed = inserts.filter((x) => x.kind === 'malformed');
const conflicts = inserts.filter((x) => x.kind === 'conflict');
const templates = catalog.flatMap((c) => c.templates);
const chosenPositions = events
  .map((e, i) => (e.signRequestId === chosen.id ? positionOfEvent(i) : undefined))
  .filter((p) => p !== undefined);
const deletedNote = (/** @type {Insert} */ x) => {
  if (x.code !== 'after-deleted') return x.what;
  const r = /** @type {ReqInfo} */ (requests.get(x.event.signRequestId));
  return x.what.replace(
    'position of the delete given below',
    `at position ${positionOfEvent(r.deleted)}`,
  );
};
/**
 * A Markdown table with padded columns (the layout the formatter keeps).
 * @param {string[]} header
 * @param {string[][]} rows
 */
const table = (header, rows) => {
  const width = header.map((h, c) =>
    Math.max(3, [...h].length, ...rows.map((r) => [...(r[c] ?? '')].length)),
  );
  const line = (/** @type {string[]} */ cells) =>
    `| ${cells.map((cell, c) => cell + ' '.repeat((width[c] ?? 0) - [...cell].length)).join(' | ')} |`;
  return [line(header), line(width.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
};
const insertTable = table(
  ['Position', 'Kind', 'What'],
  inserts.map((x) => [String(positionOf.get(x)), `${x.kind}: ${x.code}`, deletedNote(x)]),
);
const typeTable = table(
  ['Event type', 'Generated'],
  Object.entries(stats.byType)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, count]) => [`\`${type}\``, String(count)]),
);

const readme = `# Examples

Generated by \`node scripts/generate-example.js\` (seed ${SEED}); do not edit by hand, run the
script again. The output is byte-identical from run to run.

## \`events.ndjson\`

An event log as a webhook receiver might have recorded it: one JSON object per line,

\`\`\`json
{"position":1,"receivedAt":"2025-…Z","deliveryId":"dlv-…","event":{"type":"template-activated",…}}
\`\`\`

- \`position\`: 1, 2, 3, … in line order (every line has one, inserted lines included);
- \`receivedAt\`: when the delivery arrived (ISO 8601, UTC, increasing);
- \`deliveryId\`: an opaque delivery id;
- \`event\`: the webhook payload exactly as sent (spec §6), participant name spelled
  \`partcipantName\`.

${written.lines} lines: ${events.length} generated events plus ${malformed.length} malformed and ${conflicts.length} conflicting lines
inserted. The generated events cover ${COMPANIES} companies (ids 1–${COMPANIES}), ${templates.length} templates (ids
${templates[0]?.id}–${templates[templates.length - 1]?.id}) and ${stats.signRequests} sign requests (ids ${requestList[0]?.id}–${requestList[requestList.length - 1]?.id}), delivered
concurrently and at least once: ${stats.duplicates} events are redelivered (duplicates, which must be
no-ops or counted views/downloads) and ${stats.reorders} neighbouring pairs arrive swapped where the
order does not matter. Folded on their own, the generated events produce no conflict.

${typeTable}

### Inserted lines

Each inserted line has its own position; all are well-formed envelopes except the
\`invalid-json\` one. Malformed events are corrupted copies of a neighbouring event
(skipping them loses nothing); conflicts are well-formed events that the status rules
reject, none of them a repeat of an earlier event.

${insertTable}

## \`sign-request.json\`

The representation (spec §2) of sign request ${chosen.id}, "${signRequest.name}" (company
${chosen.companyId}, template ${template.id} "${template.name}"), as the service would return it after the
events at positions ${chosenPositions.join(', ')}: status \`Completed\`,
${signRequest.participants.length} participants who both signed, one signature field per role. \`savedTime\` is the
\`receivedAt\` of its \`sign-request-completed\` (UTC); the signature images are a 1×1 PNG.
`;
writeFileSync(join(outDir, 'README.md'), readme);

console.log(
  `examples/events.ndjson: ${written.lines} lines (${events.length} events: ${stats.signRequests} sign requests, ${COMPANIES} companies, ${templates.length} templates, ${stats.duplicates} duplicates, ${stats.reorders} reorders; +${malformed.length} malformed at ${malformed.map((x) => positionOf.get(x)).join(',')}; +${conflicts.length} conflicts at ${conflicts.map((x) => positionOf.get(x)).join(',')}), ${written.bytes} bytes; examples/sign-request.json: sign request ${chosen.id}`,
);
