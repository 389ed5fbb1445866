/**
 * Tenant isolation. Random streams of two companies that use the same numeric
 * ids (templates, sign requests, participants): no event of one company ever
 * changes a record the other company owns, checked before/after every event
 * with `reduce` and over a whole `fold`; every such attempt is a
 * `company-mismatch` conflict, and it shows in the projector's quarantine and
 * in the audit trail of the record it tried to touch.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import type { EventType } from '../../src/core/events/event-members.js';
import { EVENT_TYPES } from '../../src/core/events/event-members.js';
import type { SignEvent } from '../../src/core/events/sign-event.js';
import type { ParticipantId, SignRequestId, TemplateId } from '../../src/core/ids.js';
import { initialState, type ProjectionState } from '../../src/core/projections/projection-state.js';
import { fold, reduce } from '../../src/core/projections/reduce.js';
import { createProjector } from '../../src/engine/projector.js';
import { count, Figures } from './fixtures/reliability-helpers.js';

const RUNS = count(300, 10_000);
const figures = new Figures('tenant isolation');
afterAll(() => figures.print());

const A = 1;
const B = 2;

/** Ids both companies use. */
const SHARED = {
  templates: [100, 101],
  signRequests: [1000, 1001, 1002],
  participants: [1, 2, 3],
  roles: [7, 8],
} as const;

/** One event of either company over the shared ids; names vary so that changes are visible. */
const eventArb: fc.Arbitrary<SignEvent> = fc
  .record({
    type: fc.constantFrom<EventType>(...EVENT_TYPES),
    company: fc.constantFrom(A, B),
    templateId: fc.constantFrom(...SHARED.templates),
    signRequestId: fc.constantFrom(...SHARED.signRequests),
    participantId: fc.constantFrom(...SHARED.participants),
    roleId: fc.constantFrom(...SHARED.roles),
    name: fc.constantFrom('x', 'y'),
  })
  .map((g) =>
    buildEvent(g.type, {
      companyId: g.company,
      templateId: g.templateId,
      signRequestId: g.signRequestId,
      participantId: g.participantId,
      roleId: g.roleId,
      templateName: `template ${g.name}`,
      signRequestName: `request ${g.name}`,
      participantName: `participant ${g.name}`,
      ownerName: `owner of ${g.company}`,
      senderName: `sender of ${g.company}`,
    }),
  );

/** Streams where one company usually goes first on an id, so the other meets its records. */
const streamArb = fc.array(eventArb, { minLength: 1, maxLength: 60, size: 'max' });

/** Every record with its owner, keyed by a stable name. */
const owned = (state: ProjectionState): Map<string, { owner: number | null; record: unknown }> => {
  const out = new Map<string, { owner: number | null; record: unknown }>();
  for (const t of state.templates.values())
    out.set(`template ${t.id}`, { owner: t.companyId, record: t });
  for (const r of state.signRequests.values()) {
    out.set(`sign request ${r.id}`, { owner: r.companyId, record: r });
  }
  for (const ofRequest of state.participants.values()) {
    for (const p of ofRequest.values()) {
      out.set(`participant ${p.signRequestId}/${p.id}`, { owner: p.companyId, record: p });
    }
  }
  return out;
};

/** The records of `company`, as plain data. */
const recordsOf = (state: ProjectionState, company: number) =>
  Object.fromEntries(
    [...owned(state)].filter(([, v]) => v.owner === company).map(([k, v]) => [k, v.record]),
  );

/** Whether `event` names a record that another company owns in `state`. */
const targetsOtherCompany = (state: ProjectionState, event: SignEvent): boolean => {
  const other = (owner: number | null | undefined) =>
    owner !== undefined && owner !== null && owner !== event.companyId;
  if (!('signRequestId' in event)) return other(state.templates.get(event.templateId)?.companyId);
  if (other(state.signRequests.get(event.signRequestId)?.companyId)) return true;
  if (!('participantId' in event)) return false;
  const participant = state.participants.get(event.signRequestId)?.get(event.participantId);
  return other(participant?.companyId);
};

describe('tenant isolation', () => {
  it(`no event of one company changes a record of the other; each attempt is a company-mismatch (${RUNS} streams)`, () => {
    fc.assert(
      fc.property(streamArb, (events) => {
        let state = initialState();
        const attempts: number[] = [];
        events.forEach((event, index) => {
          const before = owned(state);
          const targeted = targetsOtherCompany(state, event);
          const result = reduce(state, event);
          if (targeted) {
            attempts.push(index);
            expect(result.isErr()).toBe(true);
            expect(result._unsafeUnwrapErr().kind).toBe('company-mismatch');
          } else if (result.isErr()) {
            // No false alarm: a company-mismatch always names another company's record.
            expect(result.error.kind).not.toBe('company-mismatch');
          }
          const after = owned(result.isOk() ? result.value : state);
          for (const [key, { owner, record }] of before) {
            if (owner === event.companyId) continue;
            // Another company's record: untouched (the very same frozen object).
            expect(after.get(key)?.record, key).toBe(record);
          }
          // Nothing new appears under another company's request.
          for (const [key, { owner }] of after) {
            if (!before.has(key)) expect(owner, key).toBe(event.companyId);
          }
          if (result.isOk()) state = result.value;
        });

        // The whole fold agrees with the steps, and reports exactly the same attempts.
        const folded = fold(initialState(), events);
        expect(recordsOf(folded.state, A)).toEqual(recordsOf(state, A));
        expect(recordsOf(folded.state, B)).toEqual(recordsOf(state, B));
        expect(
          folded.conflicts.filter((c) => c.kind === 'company-mismatch').map((c) => c.index),
        ).toEqual(attempts);
        // Each company's records are as if the other company did not exist, except that
        // its events refused for naming the other company's records are missing.
        const refused = new Set(attempts);
        for (const company of [A, B]) {
          const alone = fold(
            initialState(),
            events.filter((e, i) => e.companyId === company && !refused.has(i)),
          );
          expect(recordsOf(folded.state, company)).toEqual(recordsOf(alone.state, company));
        }
        figures.add('events applied', events.length);
        figures.add('cross-company attempts refused', attempts.length);
      }),
      { numRuns: RUNS },
    );
    figures.add('cases: two-company streams (reduce step by step and fold)', RUNS);
    figures.set('records changed by another company', 0);
  });

  it(`every attempt is in the projector's quarantine and in the victim's audit trail (${RUNS} streams)`, () => {
    fc.assert(
      fc.property(streamArb, (events) => {
        const projector = createProjector();
        const folded = fold(initialState(), events);
        let state = initialState();
        const victims: { position: number; event: SignEvent }[] = [];
        events.forEach((event, index) => {
          if (targetsOtherCompany(state, event)) victims.push({ position: index + 1, event });
          const result = reduce(state, event);
          if (result.isOk()) state = result.value;
          projector.apply({ position: index + 1, event });
        });
        const mismatches = projector
          .quarantine()
          .filter(
            (q) => q.reason.kind === 'conflict' && q.reason.conflict.kind === 'company-mismatch',
          );
        expect(mismatches.map((q) => q.position)).toEqual(victims.map((v) => v.position));
        for (const { position, event } of victims) {
          const trail =
            'signRequestId' in event
              ? projector.signRequestHistory(event.signRequestId as SignRequestId)
              : projector.templateHistory(event.templateId as TemplateId);
          expect(trail).toContainEqual(
            expect.objectContaining({ position, type: event.type, outcome: 'company-mismatch' }),
          );
          if ('participantId' in event) {
            const ofParticipant = projector.participantHistory(
              event.signRequestId,
              event.participantId as ParticipantId,
            );
            expect(ofParticipant.map((e) => e.position)).toContain(position);
          }
        }
        expect(recordsOf(projector.state(), A)).toEqual(recordsOf(folded.state, A));
        expect(recordsOf(projector.state(), B)).toEqual(recordsOf(folded.state, B));
        figures.add('quarantined company-mismatch entries checked', mismatches.length);
      }),
      { numRuns: RUNS },
    );
    figures.add('cases: two-company streams through the projector', RUNS);
  });
});
