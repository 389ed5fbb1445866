// @ts-check
/**
 * Deterministic generator of realistic e-signature webhook event streams (spec §6),
 * used by the benchmarks, the stress tests and `scripts/generate-example.js`.
 *
 * Plain ESM JavaScript with no dependency and no build step. Everything is derived
 * from a seed through small seeded PRNGs, so the same options always produce the
 * same events, byte for byte.
 *
 * The stream is "clean": folded with the status rules of the library it produces no
 * conflict. Duplicates only re-deliver an event whose record has not moved since
 * (so they are no-ops, or an extra counted view/download), and reorders only swap
 * neighbours whose relative order does not matter (events of different sign
 * requests, views/downloads of different participants, a view/download and the
 * signature of the same participant).
 */
import { closeSync, openSync, writeSync } from 'node:fs';

// ---------------------------------------------------------------------------
// Seeded PRNG
// ---------------------------------------------------------------------------

/**
 * mulberry32: a tiny, fast 32-bit PRNG.
 * @param {number} seed any integer (only the low 32 bits are used)
 * @returns {() => number} a function returning floats in [0, 1)
 */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Mixes a seed (any safe integer) and a salt into a 32-bit sub-seed, so that
 * independent PRNG streams can be derived from one seed.
 * @param {number} seed
 * @param {number} salt
 * @returns {number}
 */
const subSeed = (seed, salt) => {
  const lo = seed >>> 0;
  const hi = Math.floor(seed / 4294967296) >>> 0;
  let h = Math.imul(lo ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(hi + salt, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
};

// ---------------------------------------------------------------------------
// Fixed vocabularies
// ---------------------------------------------------------------------------

/** Company staff: owners and senders (and internal signers). */
const STAFF = [
  'Ada Lovelace',
  'Grace Hopper',
  'Alan Turing',
  'Katherine Johnson',
  'Edsger Dijkstra',
  'Barbara Liskov',
  'Donald Knuth',
  'Margaret Hamilton',
  'Radia Perlman',
  'Tim Berners-Lee',
  'Frances Allen',
  'John McCarthy',
  'Hedy Lamarr',
  'Dennis Ritchie',
  'Sophie Wilson',
  'Claude Shannon',
  'Annie Easley',
  'Ken Thompson',
  'Shafi Goldwasser',
  'Leslie Lamport',
  'Adele Goldberg',
  'Niklaus Wirth',
  'Karen Spärck Jones',
  'Tony Hoare',
];

/** External signers are random first/last combinations (a few non-ASCII on purpose). */
const FIRST = [
  'Olivia',
  'Liam',
  'Emma',
  'Noah',
  'Amelia',
  'Oliver',
  'Sofia',
  'Mateo',
  'Chloé',
  'Lucas',
  'Aiko',
  'Ravi',
  'Zoë',
  'José',
  'Ingrid',
  'Kwame',
  'Mei',
  'Omar',
  'Hannah',
  'Björn',
  'Priya',
  'Diego',
  'Fatima',
  'Jonas',
];
const LAST = [
  'Smith',
  'García',
  'Müller',
  'Tanaka',
  'Okafor',
  'Rossi',
  'Nguyen',
  'Kowalski',
  'Andersson',
  'Patel',
  'Dubois',
  'Cohen',
  'Silva',
  'Johansson',
  'Kim',
  'O’Brien',
  'Novak',
  'Haddad',
  'Fischer',
  'Moreau',
  'Lindqvist',
  'Mensah',
  'Ivanova',
  'Walker',
];

/**
 * Template kinds: name, form type, the role that names the sign request, and roles
 * as [name, sequence, internal] (internal roles are signed by company staff).
 * Roles sharing a sequence number sign in parallel.
 * @type {ReadonlyArray<{name: string, formType: 'Form' | 'Document', title: number, roles: ReadonlyArray<readonly [string, number, boolean]>}>}
 */
const KINDS = [
  {
    name: 'Mutual NDA',
    formType: 'Document',
    title: 1,
    roles: [
      ['Disclosing Party', 0, true],
      ['Receiving Party', 0, false],
    ],
  },
  {
    name: 'Employment Agreement',
    formType: 'Document',
    title: 1,
    roles: [
      ['HR Manager', 0, true],
      ['Employee', 1, false],
    ],
  },
  {
    name: 'Residential Lease',
    formType: 'Document',
    title: 1,
    roles: [
      ['Landlord', 0, true],
      ['Tenant', 1, false],
      ['Guarantor', 2, false],
    ],
  },
  {
    name: 'Consulting Agreement',
    formType: 'Document',
    title: 1,
    roles: [
      ['Client', 0, true],
      ['Consultant', 1, false],
    ],
  },
  {
    name: 'Vendor Onboarding Form',
    formType: 'Form',
    title: 0,
    roles: [
      ['Vendor', 0, false],
      ['Procurement Officer', 1, true],
    ],
  },
  {
    name: 'Purchase Order Approval',
    formType: 'Form',
    title: 0,
    roles: [
      ['Requester', 0, true],
      ['Approver', 1, true],
      ['Finance Controller', 2, true],
    ],
  },
  {
    name: 'Loan Application',
    formType: 'Form',
    title: 0,
    roles: [
      ['Applicant', 0, false],
      ['Co-Applicant', 0, false],
      ['Loan Officer', 1, true],
    ],
  },
  {
    name: 'Photo Release Form',
    formType: 'Form',
    title: 0,
    roles: [
      ['Subject', 0, false],
      ['Photographer', 1, true],
    ],
  },
  {
    name: 'Service Level Agreement',
    formType: 'Document',
    title: 1,
    roles: [
      ['Provider', 0, true],
      ['Customer', 0, false],
    ],
  },
  {
    name: 'Sales Contract',
    formType: 'Document',
    title: 1,
    roles: [
      ['Seller', 0, true],
      ['Buyer', 1, false],
      ['Witness', 2, false],
    ],
  },
  {
    name: 'Patient Intake Form',
    formType: 'Form',
    title: 0,
    roles: [
      ['Patient', 0, false],
      ['Clinician', 1, true],
    ],
  },
  {
    name: 'Equipment Rental Agreement',
    formType: 'Document',
    title: 1,
    roles: [
      ['Rental Agent', 0, true],
      ['Renter', 1, false],
    ],
  },
];

const USERS_PER_COMPANY = 4;

// ---------------------------------------------------------------------------
// Catalog: companies, users, templates, roles
// ---------------------------------------------------------------------------

/**
 * @typedef {{ id: number, name: string }} User
 * @typedef {{ id: number, name: string, sequence: number, internal: boolean }} Role
 * @typedef {{ id: number, companyId: number, name: string, formType: 'Form' | 'Document',
 *   owner: User, roles: Role[], title: number }} Template
 * @typedef {{ id: number, users: User[], templates: Template[] }} Company
 */

/**
 * The companies, their users and their templates (with roles and signing sequence)
 * that {@link generateEvents} uses for the same options. Ids are globally unique:
 * companies 1..C, users `5000 + 20·c + k`, templates from 1001 upwards, roles
 * `10·templateId + r`.
 * @param {{ seed: number, companies?: number, templatesPerCompany?: number }} options
 * @returns {Company[]}
 */
export function templateCatalog({ seed, companies = 5, templatesPerCompany = 4 }) {
  const rng = mulberry32(subSeed(seed, 1));
  /** @type {Company[]} */
  const out = [];
  let templateId = 1001;
  for (let c = 1; c <= companies; c++) {
    /** @type {User[]} */
    const users = [];
    for (let k = 0; k < USERS_PER_COMPANY; k++) {
      users.push({
        id: 5000 + 20 * c + k,
        name: STAFF[((c - 1) * USERS_PER_COMPANY + k) % STAFF.length] ?? 'Ada Lovelace',
      });
    }
    // A company uses distinct kinds (a rotated window of the list), then versions.
    const offset = Math.floor(rng() * KINDS.length);
    /** @type {Template[]} */
    const templates = [];
    for (let k = 0; k < templatesPerCompany; k++) {
      const kind = /** @type {(typeof KINDS)[number]} */ (KINDS[(offset + k) % KINDS.length]);
      const version = Math.floor(k / KINDS.length);
      const id = templateId++;
      templates.push({
        id,
        companyId: c,
        name: version === 0 ? kind.name : `${kind.name} v${version + 1}`,
        formType: kind.formType,
        owner: /** @type {User} */ (users[Math.floor(rng() * users.length)]),
        roles: kind.roles.map(([name, sequence, internal], r) => ({
          id: id * 10 + r + 1,
          name,
          sequence,
          internal,
        })),
        title: kind.title,
      });
    }
    out.push({ id: c, users, templates });
  }
  return out;
}

// ---------------------------------------------------------------------------
// Event builders (member order of spec §6.3; `partcipantName` as on the wire)
// ---------------------------------------------------------------------------

/**
 * @param {string} type
 * @param {Template} t
 */
const templateEvent = (type, t) => ({
  type,
  companyId: t.companyId,
  templateId: t.id,
  templateName: t.name,
  ownerId: t.owner.id,
  ownerName: t.owner.name,
});

/**
 * @typedef {{ id: number, name: string, role: Role, stage: number, viewsLeft: number,
 *   viewed: boolean, download: boolean, declines: boolean }} Part
 * @typedef {{ id: number, name: string, companyId: number, template: Template, owner: User,
 *   sender: User, parts: Part[], phase: number, g0: number, g1: number, nextToSend: number,
 *   groupLeft: number, declined: boolean, deleteAfter: number, deleteAtEnd: boolean,
 *   done: boolean, seq: number }} Req
 */

/**
 * A sign-request event with template members (sent, completed).
 * @param {string} type
 * @param {Req} r
 */
const requestEventT = (type, r) => ({
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
 * @param {Req} r
 */
const requestEvent = (type, r) => ({
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
 * @param {Req} r
 * @param {Part} p
 */
const participantEventT = (type, r, p) => ({
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
 * @param {Req} r
 * @param {Part} p
 */
const participantEvent = (type, r, p) => ({
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
const canSwap = (a, b) => {
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

// ---------------------------------------------------------------------------
// The generator
// ---------------------------------------------------------------------------

/**
 * @typedef {{ events: number, duplicates: number, reorders: number, signRequests: number,
 *   byType: Record<string, number> }} GenerateStats
 */

/**
 * Generates a realistic, deterministic stream of wire events (plain objects with
 * exactly the members of spec §6.2 for their type, participant name spelled
 * `partcipantName`).
 *
 * Flow: `template-activated` for every template first; then sign requests run
 * concurrently (an in-flight window of up to `maxInFlight` requests is advanced in
 * random order): `sign-request-sent`, then per signing step (roles sharing a
 * sequence number sign in parallel) `participant-sent`, one or more
 * `participant-viewed`, sometimes `participant-downloaded`, then
 * `participant-signed` (most) or `participant-declined` (about 8% of requests);
 * `sign-request-completed` when all signed, `sign-request-declined` after a decline;
 * about 3% of requests are deleted (some while in flight, most once final).
 * Templates are occasionally inactivated and re-activated; at the end one template
 * per company (with at least two) is inactivated and deleted.
 *
 * Delivery faults use their own PRNG stream, so the underlying flow does not depend
 * on the rates: after each event, with probability `duplicateRate` a recent event
 * whose record has not changed since is delivered again; with probability
 * `reorderRate` an event is swapped with its successor where that is harmless.
 *
 * `concurrent`, when given, replaces that window, and a request is started whenever
 * fewer than `concurrent` are open: the window fills first (with `signRequests ≤
 * concurrent`, every request is open at once), then stays full while requests
 * remain. As on a real service, where a request's participants view and sign over
 * days while thousands of others progress, consecutive events belong to unrelated
 * requests.
 *
 * Memory is O(window), independent of `signRequests`.
 *
 * @param {{ seed: number, signRequests: number, companies?: number,
 *   templatesPerCompany?: number, duplicateRate?: number, reorderRate?: number,
 *   maxInFlight?: number, concurrent?: number, stats?: GenerateStats }} options `stats`, when given, is
 *   filled in as events are generated.
 * @returns {Generator<Record<string, string | number>, void, undefined>}
 */
export function* generateEvents({
  seed,
  signRequests,
  companies = 5,
  templatesPerCompany = 4,
  duplicateRate = 0.02,
  reorderRate = 0.01,
  maxInFlight = 256,
  concurrent,
  stats,
}) {
  if (!Number.isSafeInteger(seed)) throw new TypeError('seed must be a safe integer');
  if (!Number.isSafeInteger(signRequests) || signRequests < 0) {
    throw new TypeError('signRequests must be a non-negative integer');
  }
  if (!(companies >= 1 && templatesPerCompany >= 1)) {
    throw new TypeError('need at least one company and one template per company');
  }
  const frng = mulberry32(subSeed(seed, 2)); // the flow
  const drng = mulberry32(subSeed(seed, 3)); // delivery faults
  const catalog = templateCatalog({ seed, companies, templatesPerCompany });

  // Company weights: a few big customers, a long tail.
  const cumulative = [];
  let total = 0;
  for (let c = 1; c <= companies; c++) {
    total += 1 / c ** 0.7;
    cumulative.push(total);
  }
  const pickCompany = () => {
    const x = frng() * total;
    let i = 0;
    while (i < companies - 1 && /** @type {number} */ (cumulative[i]) <= x) i++;
    return /** @type {Company} */ (catalog[i]);
  };

  // Template state: active templates per company, pending re-activations.
  /** @type {Template[][]} */
  const active = catalog.map((c) => c.templates.slice());
  /** @type {{ template: Template, at: number }[]} */
  const pending = [];
  /** Per-template "version" for the duplicate freshness check. */
  const templateSeq = new Map();

  if (concurrent !== undefined && !(Number.isSafeInteger(concurrent) && concurrent >= 1)) {
    throw new TypeError('concurrent must be a positive integer');
  }
  const window =
    concurrent ?? Math.max(1, Math.min(maxInFlight, Math.max(8, Math.ceil(signRequests / 8))));
  /** @type {Req[]} */
  const inflight = [];
  let started = 0;
  let nextParticipantId = 500001;
  let step = 0;
  /** @type {any[]} */
  const finale = []; // template events emitted once every request is done
  let finaleBuilt = false;
  let initial = 0;
  const allTemplates = catalog.flatMap((c) => c.templates);

  /** @param {Company} company */
  const newRequest = (company) => {
    const list = /** @type {Template[]} */ (active[company.id - 1]);
    const template = /** @type {Template} */ (list[Math.floor(frng() * list.length)]);
    const users = company.users;
    const owner = /** @type {User} */ (users[Math.floor(frng() * users.length)]);
    const sender =
      frng() < 0.7 ? owner : /** @type {User} */ (users[Math.floor(frng() * users.length)]);
    const decliner = frng() < 0.08 ? Math.floor(frng() * template.roles.length) : -1;
    /** @type {Part[]} */
    const parts = [];
    for (let i = 0; i < template.roles.length; i++) {
      const role = /** @type {Role} */ (template.roles[i]);
      const v = frng();
      parts.push({
        id: nextParticipantId++,
        name: role.internal
          ? /** @type {User} */ (users[Math.floor(frng() * users.length)]).name
          : `${FIRST[Math.floor(frng() * FIRST.length)]} ${LAST[Math.floor(frng() * LAST.length)]}`,
        role,
        stage: 0,
        viewsLeft: v < 0.8 ? 1 : v < 0.95 ? 2 : 3,
        viewed: false,
        download: frng() < 0.15,
        declines: i === decliner,
      });
    }
    const titled = /** @type {Part} */ (parts[template.title] ?? parts[0]);
    const d = frng();
    started++;
    return /** @type {Req} */ ({
      id: 100000 + started,
      name: `${template.name} - ${titled.name}`,
      companyId: company.id,
      template,
      owner,
      sender,
      parts,
      phase: 0,
      g0: 0,
      g1: 0,
      nextToSend: 0,
      groupLeft: 0,
      declined: false,
      deleteAfter: d < 0.008 ? 1 + Math.floor(frng() * 4) : -1,
      deleteAtEnd: d >= 0.008 && d < 0.03,
      done: false,
      seq: 0,
    });
  };

  /** Opens the next signing step: the participants sharing the next sequence. @param {Req} r */
  const openGroup = (r) => {
    const parts = r.parts;
    const g0 = r.g1;
    const sequence = /** @type {Part} */ (parts[g0]).role.sequence;
    let g1 = g0 + 1;
    while (g1 < parts.length && /** @type {Part} */ (parts[g1]).role.sequence === sequence) g1++;
    r.g0 = g0;
    r.g1 = g1;
    r.nextToSend = g0;
    r.groupLeft = g1 - g0;
  };

  /** @param {Req} r */
  const advance = (r) => {
    r.seq++;
    switch (r.phase) {
      case 0:
        r.phase = 1;
        openGroup(r);
        return requestEventT('sign-request-sent', r);
      case 1: {
        if (r.deleteAfter === 0) {
          r.done = true;
          return requestEvent('sign-request-deleted', r);
        }
        if (r.deleteAfter > 0) r.deleteAfter--;
        const parts = r.parts;
        if (r.nextToSend < r.g1) {
          const p = /** @type {Part} */ (parts[r.nextToSend++]);
          p.stage = 1;
          return participantEventT('participant-sent', r, p);
        }
        // A random participant of the current step who has not finished yet.
        const g0 = r.g0;
        const size = r.g1 - g0;
        const k = Math.floor(frng() * size);
        let p = /** @type {Part} */ (parts[g0 + k]);
        for (let n = 1; p.stage !== 1 && n < size; n++) {
          p = /** @type {Part} */ (parts[g0 + ((k + n) % size)]);
        }
        if (p.viewsLeft > 0 && (!p.viewed || !p.download || frng() < 0.6)) {
          p.viewsLeft--;
          p.viewed = true;
          return participantEvent('participant-viewed', r, p);
        }
        if (p.download) {
          p.download = false;
          return participantEvent('participant-downloaded', r, p);
        }
        p.stage = 2;
        if (p.declines) {
          r.declined = true;
          r.phase = 2;
          return participantEvent('participant-declined', r, p);
        }
        if (--r.groupLeft === 0) {
          if (r.g1 === parts.length) r.phase = 2;
          else openGroup(r);
        }
        return participantEventT('participant-signed', r, p);
      }
      case 2:
        if (r.deleteAtEnd) r.phase = 3;
        else r.done = true;
        return r.declined
          ? requestEvent('sign-request-declined', r)
          : requestEventT('sign-request-completed', r);
      default:
        r.done = true;
        return requestEvent('sign-request-deleted', r);
    }
  };

  /** @param {Template} t @param {string} type */
  const templateFlow = (t, type) => {
    templateSeq.set(t.id, (templateSeq.get(t.id) ?? 0) + 1);
    return templateEvent(type, t);
  };

  /** The record (request or template) the last flow event touched, for duplicates. */
  /** @type {any} */
  let entity = null;
  /** The next event of the underlying (fault-free) flow, or null at the end; sets `entity`. */
  const nextFlow = () => {
    if (initial < allTemplates.length) {
      const t = /** @type {Template} */ (allTemplates[initial++]);
      entity = t;
      return templateFlow(t, 'template-activated');
    }
    step++;
    // Template maintenance: re-activation when due, occasional inactivation.
    const due = pending[0];
    if (due !== undefined && due.at <= step) {
      pending.shift();
      active[due.template.companyId - 1]?.push(due.template);
      entity = due.template;
      return templateFlow(due.template, 'template-activated');
    }
    if (frng() < 1 / 3000 && inflight.length > 0) {
      const c = Math.floor(frng() * companies);
      const list = /** @type {Template[]} */ (active[c]);
      if (list.length >= 2) {
        const t = /** @type {Template} */ (list.splice(Math.floor(frng() * list.length), 1)[0]);
        const at = step + 200 + Math.floor(frng() * 2000);
        let i = pending.length;
        while (i > 0 && /** @type {{at: number}} */ (pending[i - 1]).at > at) i--;
        pending.splice(i, 0, { template: t, at });
        entity = t;
        return templateFlow(t, 'template-inactivated');
      }
    }
    if (
      started < signRequests &&
      inflight.length < window &&
      (inflight.length === 0 || concurrent !== undefined || frng() < 0.2)
    ) {
      const r = newRequest(pickCompany());
      inflight.push(r);
      entity = r;
      return advance(r);
    }
    if (inflight.length > 0) {
      const i = Math.floor(frng() * inflight.length);
      const r = /** @type {Req} */ (inflight[i]);
      const ev = advance(r);
      if (r.done) {
        const last = /** @type {Req} */ (inflight.pop());
        if (i < inflight.length) inflight[i] = last;
      }
      entity = r;
      return ev;
    }
    if (started < signRequests) throw new Error('unreachable: no template to start a request');
    if (!finaleBuilt) {
      finaleBuilt = true;
      for (const company of catalog) {
        if (company.templates.length < 2) continue;
        const t = /** @type {Template} */ (company.templates[company.templates.length - 1]);
        const list = /** @type {Template[]} */ (active[company.id - 1]);
        if (list.includes(t)) finale.push(t, 'template-inactivated');
        finale.push(t, 'template-deleted');
      }
      finale.reverse(); // pop() from the end: pairs become [type, template]
    }
    if (finale.length > 0) {
      const t = finale.pop();
      const type = finale.pop();
      entity = t;
      return templateFlow(t, type);
    }
    return null;
  };

  /** @param {any} e */
  const entitySeq = (e) => (e.seq !== undefined ? e.seq : templateSeq.get(e.id));

  // Ring of recent flow events for duplicates.
  const RING = 32;
  /** @type {any[]} */
  const ringEvent = new Array(RING).fill(null);
  /** @type {any[]} */
  const ringEntity = new Array(RING).fill(null);
  const ringSeq = new Array(RING).fill(0);
  let ringPos = 0;
  let flowCount = 0;

  /** @type {any} */
  let held = null;
  let duplicates = 0;
  let reorders = 0;
  /** @type {Record<string, number> | null} */
  const byType = stats ? {} : null;

  for (;;) {
    const ev = nextFlow();
    if (ev === null) break;
    flowCount++;
    const slot = ringPos;
    ringPos = (ringPos + 1) % RING;
    ringEvent[slot] = ev;
    ringEntity[slot] = entity;
    ringSeq[slot] = entitySeq(entity);

    /** @type {any} */
    let dup = null;
    if (duplicateRate > 0 && drng() < duplicateRate) {
      const back = Math.floor(drng() * Math.min(RING, flowCount));
      const j = (slot - back + RING) % RING;
      dup = entitySeq(ringEntity[j]) === ringSeq[j] ? ringEvent[j] : ev;
      dup = { ...dup };
      duplicates++;
    }

    // Reorder stage with one event of look-ahead (`held`).
    if (held === null) held = ev;
    else if (reorderRate > 0 && drng() < reorderRate && canSwap(held, ev)) {
      if (byType) byType[ev.type] = (byType[ev.type] ?? 0) + 1;
      yield ev;
      reorders++;
      const h = held;
      held = null;
      if (byType) byType[h.type] = (byType[h.type] ?? 0) + 1;
      yield h;
    } else {
      const h = held;
      held = ev;
      if (byType) byType[h.type] = (byType[h.type] ?? 0) + 1;
      yield h;
    }
    if (dup !== null) {
      if (held === null) held = dup;
      else if (reorderRate > 0 && drng() < reorderRate && canSwap(held, dup)) {
        if (byType) byType[dup.type] = (byType[dup.type] ?? 0) + 1;
        yield dup;
        reorders++;
        const h = held;
        held = null;
        if (byType) byType[h.type] = (byType[h.type] ?? 0) + 1;
        yield h;
      } else {
        const h = held;
        held = dup;
        if (byType) byType[h.type] = (byType[h.type] ?? 0) + 1;
        yield h;
      }
    }
    if (stats) {
      stats.events = flowCount + duplicates;
      stats.duplicates = duplicates;
      stats.reorders = reorders;
      stats.signRequests = started;
    }
  }
  if (held !== null) {
    if (byType) byType[held.type] = (byType[held.type] ?? 0) + 1;
    yield held;
  }
  if (stats) {
    stats.events = flowCount + duplicates;
    stats.duplicates = duplicates;
    stats.reorders = reorders;
    stats.signRequests = started;
    stats.byType = /** @type {Record<string, number>} */ (byType);
  }
}

// ---------------------------------------------------------------------------
// Envelopes and NDJSON output
// ---------------------------------------------------------------------------

/**
 * @typedef {{ position: number, receivedAt: string, deliveryId: string, event: unknown }} Envelope
 */

/** @type {string[] | null} */
let HEX4 = null;
/** The 65,536 four-digit lower-case hex strings, built on first use. */
const hex4 = () => {
  if (HEX4 === null) {
    HEX4 = new Array(65536);
    for (let i = 0; i < 65536; i++) HEX4[i] = i.toString(16).padStart(4, '0');
  }
  return HEX4;
};

/**
 * A deterministic delivery clock and id source: `receivedAt` starts on a day derived
 * from the seed (in 2025) and advances by random gaps averaging `meanGapMs`;
 * `deliveryId` is `dlv-` followed by 16 hex digits.
 * @param {number} seed
 * @param {number} meanGapMs
 */
const deliveryClock = (seed, meanGapMs) => {
  const rng = mulberry32(subSeed(seed, 4));
  let ms = Date.UTC(2025, 0, 6, 8, 0, 0) + (subSeed(seed, 5) % 300) * 86_400_000;
  let isoSecond = -1;
  let isoPrefix = '';
  return {
    /** @returns {string} */
    next() {
      ms += Math.floor(-Math.log(1 - rng()) * meanGapMs);
      const second = Math.floor(ms / 1000);
      if (second !== isoSecond) {
        isoSecond = second;
        isoPrefix = new Date(second * 1000).toISOString().slice(0, 20); // "YYYY-MM-DDTHH:MM:SS."
      }
      const frac = ms - second * 1000;
      return `${isoPrefix}${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}Z`;
    },
    /** @returns {string} */
    id() {
      const hex = hex4();
      const a = (rng() * 4294967296) >>> 0;
      const b = (rng() * 4294967296) >>> 0;
      return `dlv-${hex[a >>> 16]}${hex[a & 0xffff]}${hex[b >>> 16]}${hex[b & 0xffff]}`;
    },
  };
};

/**
 * Wraps events in delivery envelopes
 * `{ position, receivedAt, deliveryId, event }`, positions counting up from
 * `startPosition`, times and ids deterministic from `seed`.
 * @param {Iterable<unknown>} events
 * @param {{ seed?: number, startPosition?: number, meanGapMs?: number }} [options]
 * @returns {Generator<Envelope, void, undefined>}
 */
export function* envelopes(events, { seed = 1, startPosition = 1, meanGapMs = 250 } = {}) {
  const clock = deliveryClock(seed, meanGapMs);
  let position = startPosition;
  for (const event of events) {
    yield { position: position++, receivedAt: clock.next(), deliveryId: clock.id(), event };
  }
}

/**
 * Writes bytes to a file descriptor, looping over partial writes.
 * @param {number} fd
 * @param {Buffer} data
 * @param {number} length
 */
const writeAll = (fd, data, length) => {
  let off = 0;
  while (off < length) off += writeSync(fd, data, off, length - off);
};

/**
 * Writes items as NDJSON (one JSON value per line, `\n`-terminated) with large
 * buffered synchronous writes. A string item is written verbatim as one line (for
 * pre-serialised or deliberately broken lines); any other item is `JSON.stringify`-ed.
 * With `envelope: true` each non-string item is wrapped as
 * `{"position":N,"receivedAt":"<ISO>","deliveryId":"dlv-…","event":{…}}` exactly as
 * {@link envelopes} would (string items are then still written verbatim and take no
 * position).
 * @param {string} path
 * @param {Iterable<unknown>} items
 * @param {{ envelope?: boolean, startPosition?: number, seed?: number, meanGapMs?: number }} [options]
 * @returns {{ lines: number, bytes: number }}
 */
export function writeNdjson(
  path,
  items,
  { envelope = false, startPosition = 1, seed = 1, meanGapMs = 250 } = {},
) {
  const SIZE = 4 * 1024 * 1024;
  const buffer = Buffer.allocUnsafe(SIZE);
  let used = 0;
  let lines = 0;
  let bytes = 0;
  const clock = envelope ? deliveryClock(seed, meanGapMs) : null;
  let position = startPosition;
  const fd = openSync(path, 'w');
  /** Encodes one line (plus `\n`) into the buffer, flushing it when it could overflow. */
  const put = (/** @type {string} */ line) => {
    const max = line.length * 3 + 1; // UTF-8 bytes, at most
    if (used + max > SIZE) {
      writeAll(fd, buffer, used);
      bytes += used;
      used = 0;
    }
    if (max > SIZE) {
      const data = Buffer.from(`${line}\n`, 'utf8');
      writeAll(fd, data, data.length);
      bytes += data.length;
    } else {
      used += buffer.write(line, used, 'utf8');
      buffer[used++] = 10;
    }
    lines++;
  };
  try {
    for (const item of items) {
      if (typeof item === 'string') put(item);
      else if (clock !== null) {
        put(
          `{"position":${position++},"receivedAt":"${clock.next()}","deliveryId":"${clock.id()}","event":${JSON.stringify(item)}}`,
        );
      } else put(JSON.stringify(item));
    }
    writeAll(fd, buffer, used);
    bytes += used;
  } finally {
    closeSync(fd);
  }
  return { lines, bytes };
}
