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
import { FIRST, LAST, templateCatalog } from './stream/catalog.js';
import { mulberry32, subSeed } from './stream/seeded-random.js';
import {
  canSwap,
  participantEvent,
  participantEventT,
  requestEvent,
  requestEventT,
  templateEvent,
} from './stream/wire-events.js';

export { templateCatalog } from './stream/catalog.js';
export { envelopes, writeNdjson } from './stream/ndjson-output.js';
export { mulberry32 } from './stream/seeded-random.js';

/**
 * @typedef {import('./stream/catalog.js').Company} Company
 * @typedef {import('./stream/catalog.js').User} User
 * @typedef {import('./stream/catalog.js').Role} Role
 * @typedef {import('./stream/catalog.js').Template} Template
 * @typedef {import('./stream/wire-events.js').Part} Part
 * @typedef {import('./stream/wire-events.js').Req} Req
 */

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
  /** @type {number[]} */
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

/**
 * The first `count` events of the stream of `seed`: generated from enough sign requests
 * (`perRequest` events assumed per request, 10 requests to spare) and cut there.
 *
 * @param {number} count
 * @param {number} seed
 * @param {number} [perRequest]
 * @returns {Generator<Record<string, string | number>, void, undefined>}
 */
export function* firstEvents(count, seed, perRequest = 6) {
  let n = 0;
  for (const event of generateEvents({ seed, signRequests: Math.ceil(count / perRequest) + 10 })) {
    if (n >= count) return;
    n += 1;
    yield event;
  }
}
