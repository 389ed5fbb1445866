/**
 * Re-delivery storms. Webhooks are delivered at least once, so every event may
 * arrive 2–5 times, and neighbours may overtake each other. Property: a clean
 * stream delivered as a storm gives the same statuses as one clean delivery
 * (sign request status and deleted flag, participant status, template status),
 * as long as the storm stays within the tolerance of the status rules:
 *
 * - a duplicate may arrive arbitrarily late, except a duplicate of
 *   `template-activated` / `template-inactivated`, which may only arrive before
 *   the next event about the same template (active ⇄ inactive is reversible,
 *   so a late copy would really move the template back);
 * - first deliveries are only reordered where the two events commute (see
 *   {@link mayOvertake}).
 *
 * Counters (`viewCount`, `downloadCount`) count deliveries, so they may differ;
 * with the delivery id as the log's idempotency key, the log stores each event
 * once and the whole state, counters included, equals the clean one.
 */

import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { generateEvents, mulberry32 } from '../../bench/generate-stream.js';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import { decodeEvent } from '../../src/core/events/decode-event.js';
import type { SignEvent } from '../../src/core/events/sign-event.js';
import { initialState, type ProjectionState } from '../../src/core/projections/projection-state.js';
import { fold } from '../../src/core/projections/reduce.js';
import { createProjector } from '../../src/engine/projector.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { untimedRecords } from '../support/projection-records.js';
import { count, Figures } from './fixtures/reliability-helpers.js';

const RUNS = count(300, 5_000);
const figures = new Figures('re-delivery storms');
afterAll(() => figures.print());

type TemplateType = 'template-activated' | 'template-inactivated';

/** The record an event is about, for the reorder and lateness rules. */
const templateOf = (e: SignEvent): number | undefined =>
  e.type.startsWith('template-') ? (e as { templateId: number }).templateId : undefined;
const requestOf = (e: SignEvent): number | undefined =>
  'signRequestId' in e ? e.signRequestId : undefined;
const participantOf = (e: SignEvent): number | undefined =>
  'participantId' in e ? e.participantId : undefined;

const VIEW_LIKE = new Set(['participant-viewed', 'participant-downloaded']);
const OVERTAKES_VIEWS = new Set([...VIEW_LIKE, 'participant-signed', 'participant-declined']);

/**
 * Whether `b` may be delivered before `a` although `a` came first: the two
 * commute under the status rules. Events of different sign requests commute;
 * template events commute with everything but another event of the same
 * template and a `sign-request-sent` naming a deleted template; participants
 * of one request are independent; for one participant, a view or download
 * may be overtaken by another view/download or by its signature or decline.
 */
const mayOvertake = (a: SignEvent, b: SignEvent): boolean => {
  const ta = templateOf(a);
  const tb = templateOf(b);
  if (ta !== undefined || tb !== undefined) {
    if (ta !== undefined && tb !== undefined) return ta !== tb;
    const [template, other] = ta !== undefined ? [a, b] : [b, a];
    return !(
      template.type === 'template-deleted' &&
      other.type === 'sign-request-sent' &&
      other.templateId === (template as { templateId: number }).templateId
    );
  }
  if (requestOf(a) !== requestOf(b)) return true;
  const pa = participantOf(a);
  const pb = participantOf(b);
  if (pa === undefined || pb === undefined) return false;
  if (pa !== pb) return true;
  return VIEW_LIKE.has(a.type) && OVERTAKES_VIEWS.has(b.type);
};

/** Whether a copy of `e` may arrive after any later event (it can never move a status back). */
const lateTolerant = (e: SignEvent): boolean =>
  e.type !== 'template-activated' && e.type !== 'template-inactivated';

const decodeAll = (wire: Iterable<unknown>): SignEvent[] =>
  [...wire].map((w) => decodeEvent(w)._unsafeUnwrap());

interface CleanOptions {
  readonly seed: number;
  readonly signRequests: number;
  readonly companies: number;
  readonly templatesPerCompany: number;
  /** Template toggles inserted at random points: `[where, which template, activate?]`. */
  readonly toggles: readonly (readonly [number, number, boolean])[];
}

/**
 * A clean, conflict-free stream: `generateEvents` without delivery faults,
 * plus template toggles (so that active ⇄ inactive actually happens), each
 * inserted before its template is deleted.
 */
const cleanStream = (options: CleanOptions): SignEvent[] => {
  const events = decodeAll(
    generateEvents({ ...options, duplicateRate: 0, reorderRate: 0, maxInFlight: 8 }),
  );
  const templates = events.filter((e) => e.type === 'template-activated');
  for (const [where, which, activate] of options.toggles) {
    const template = templates[which % templates.length];
    if (template === undefined) continue;
    const id = template.templateId;
    const created = events.indexOf(template);
    const deleted = events.findIndex((e) => e.type === 'template-deleted' && e.templateId === id);
    const end = deleted === -1 ? events.length : deleted;
    const at = created + 1 + (where % Math.max(1, end - created));
    const type: TemplateType = activate ? 'template-activated' : 'template-inactivated';
    events.splice(at, 0, { ...template, type });
  }
  return events;
};

interface Delivery {
  readonly event: SignEvent;
  /** Index of the event in the clean stream: its delivery id. */
  readonly original: number;
}

/**
 * A storm: first deliveries reordered by random adjacent swaps of events that
 * commute, then every event given 1–4 extra copies, each inserted at a random
 * later point within its tolerance.
 */
const storm = (clean: readonly SignEvent[], seed: number): Delivery[] => {
  const random = mulberry32(seed);
  const order: Delivery[] = clean.map((event, original) => ({ event, original }));
  for (let pass = 0; pass < 3; pass += 1) {
    for (let i = 0; i + 1 < order.length; i += 1) {
      const a = order[i] as Delivery;
      const b = order[i + 1] as Delivery;
      if (random() < 0.3 && mayOvertake(a.event, b.event)) {
        order[i] = b;
        order[i + 1] = a;
        figures.add('first deliveries swapped');
      }
    }
  }
  // Where each copy goes: "after first-delivery index k" (ties keep insertion order).
  const copiesAfter: Delivery[][] = order.map(() => []);
  order.forEach((delivery, index) => {
    const extra = 1 + Math.floor(random() * 4);
    let limit = order.length - 1;
    if (!lateTolerant(delivery.event)) {
      // Only until the next event about the same template.
      const template = templateOf(delivery.event);
      const next = order.findIndex((d, j) => j > index && templateOf(d.event) === template);
      limit = next === -1 ? order.length - 1 : next - 1;
    }
    for (let c = 0; c < extra; c += 1) {
      const at = index + Math.floor(random() * (limit - index + 1));
      copiesAfter[at]?.push(delivery);
      if (at > index) figures.add('duplicates delivered late');
    }
  });
  return order.flatMap((delivery, index) => [delivery, ...(copiesAfter[index] ?? [])]);
};

/** The statuses the property compares, keyed by record. */
const statuses = (state: ProjectionState) => {
  const out: Record<string, string> = {};
  for (const t of state.templates.values()) out[`template ${t.id}`] = t.status;
  for (const r of state.signRequests.values()) {
    out[`sign request ${r.id}`] = `${r.status}${r.deleted ? ' (deleted)' : ''}`;
  }
  for (const ofRequest of state.participants.values()) {
    for (const p of ofRequest.values()) out[`participant ${p.signRequestId}/${p.id}`] = p.status;
  }
  return out;
};

/** Every record as sorted plain data, counters and names included. */
const records = (state: ProjectionState) => ({
  templates: [...state.templates.values()].sort((a, b) => a.id - b.id),
  signRequests: [...state.signRequests.values()].sort((a, b) => a.id - b.id),
  participants: [...state.participants.values()]
    .flatMap((m) => [...m.values()])
    .sort((a, b) => a.signRequestId - b.signRequestId || a.id - b.id),
});

const cleanArb: fc.Arbitrary<CleanOptions> = fc.record({
  seed: fc.integer(),
  signRequests: fc.integer({ min: 1, max: 12 }),
  companies: fc.integer({ min: 1, max: 3 }),
  templatesPerCompany: fc.integer({ min: 1, max: 3 }),
  toggles: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { maxLength: 6 }),
});

describe('re-delivery storms', () => {
  it(`2-5 deliveries per event, reordered within tolerance, give the clean statuses (${RUNS} storms)`, () => {
    fc.assert(
      fc.property(cleanArb, fc.integer(), (options, stormSeed) => {
        const clean = cleanStream(options);
        const once = fold(initialState(), clean);
        expect(once.conflicts).toEqual([]);
        const deliveries = storm(clean, stormSeed);
        const stormy = fold(
          initialState(),
          deliveries.map((d) => d.event),
        );
        expect(statuses(stormy.state)).toEqual(statuses(once.state));
        // Counters count deliveries: never fewer than in the clean delivery.
        const before = records(once.state).participants;
        const after = records(stormy.state).participants;
        after.forEach((p, i) => {
          expect(p.viewCount).toBeGreaterThanOrEqual(before[i]?.viewCount ?? 0);
          expect(p.downloadCount).toBeGreaterThanOrEqual(before[i]?.downloadCount ?? 0);
          if (p.viewCount !== before[i]?.viewCount)
            figures.add('participants with inflated counters');
        });
        figures.add('events in clean streams', clean.length);
        figures.add('deliveries in storms', deliveries.length);
        figures.add('conflicts absorbed in storms (late copies refused)', stormy.conflicts.length);
      }),
      { numRuns: RUNS },
    );
    figures.add('cases: storms folded and compared', RUNS);
    figures.set('status differences found', 0);
  });

  it(`with the delivery id as idempotency key the log stores each event once: whole state equal, counters included (${Math.ceil(RUNS / 3)} storms)`, async () => {
    await fc.assert(
      fc.asyncProperty(cleanArb, fc.integer(), async (options, stormSeed) => {
        const clean = cleanStream(options);
        const deliveries = storm(clean, stormSeed);
        const log = createMemoryEventLog();
        const appended = await log.appendBatch(
          deliveries.map((d) => ({ event: d.event, deliveryId: `delivery-${d.original}` })),
        );
        const outcomes = appended._unsafeUnwrap();
        expect(outcomes.filter((o) => o.kind === 'appended')).toHaveLength(clean.length);
        const projector = createProjector();
        (await projector.replay(log))._unsafeUnwrap();
        expect(projector.quarantine()).toEqual([]);
        // The log stamps each delivery with its arrival time: all but the views' times must be equal.
        expect(untimedRecords(records(projector.state()))).toEqual(
          untimedRecords(records(fold(initialState(), clean).state)),
        );
        figures.add('duplicates dropped by delivery id', deliveries.length - clean.length);
      }),
      { numRuns: Math.ceil(RUNS / 3) },
    );
    figures.add('cases: storms through a log with delivery ids', Math.ceil(RUNS / 3));
  });

  it('the boundary: a late copy of template-activated after template-inactivated really reactivates', () => {
    const activated = buildEvent('template-activated');
    const inactivated = buildEvent('template-inactivated');
    const clean = fold(initialState(), [activated, inactivated]);
    const late = fold(initialState(), [activated, inactivated, activated]);
    expect(clean.state.templates.get(activated.templateId)?.status).toBe('inactive');
    expect(late.state.templates.get(activated.templateId)?.status).toBe('active');
    expect(late.conflicts).toEqual([]);
    // Every other kind of late copy is refused or changes no status.
    const request = [
      buildEvent('sign-request-sent'),
      buildEvent('participant-sent'),
      buildEvent('participant-viewed'),
      buildEvent('participant-signed'),
      buildEvent('sign-request-completed'),
      buildEvent('sign-request-deleted'),
    ];
    const base = fold(initialState(), request);
    for (const copy of request) {
      const replayed = fold(base.state, [copy]);
      expect(statuses(replayed.state)).toEqual(statuses(base.state));
    }
  });
});
