import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { events } from '../../src/core/builders/plain-builders.js';
import { participantId, signRequestId } from '../../src/core/ids.js';
import {
  getSignRequest,
  getTemplate,
  initialState,
  listParticipants,
  type ProjectionState,
} from '../../src/core/projections/projection-state.js';
import { fold } from '../../src/core/projections/reduce.js';
import { WorkingCopy } from '../../src/core/projections/working-copy.js';
import type { Change, TouchedViews } from '../../src/core/reactors/reactor-types.js';
import { touchedViewsOf } from '../../src/engine/applied-change.js';
import { createProjector } from '../../src/engine/projector.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { memoryLogOf, rawStreamArb, readAll } from '../support/engine-arbitraries.js';

interface Seen {
  readonly position: number;
  readonly before: TouchedViews;
  readonly after: TouchedViews;
}

describe('the views of a change (made on first read)', () => {
  it('equal the views read from the published states around each applied event', async () => {
    await fc.assert(
      fc.asyncProperty(rawStreamArb(), fc.boolean(), async (items, afterFirst) => {
        const log = await memoryLogOf(items);
        // Bulk: records are written in place and pre-images are copies.
        const bulk: Seen[] = [];
        const replaying = createProjector({
          onApplied: (change) => {
            // Reading `after` first must not change what `before` says.
            const after = afterFirst ? change.after : undefined;
            bulk.push({
              position: change.position,
              before: change.before,
              after: after ?? change.after,
            });
          },
        });
        expect((await replaying.replay(log)).isOk()).toBe(true);

        // Live, publishing around every event: records are frozen, so a write copies them and
        // the pre-image is the frozen record itself. The reference reads the published states.
        const live: Seen[] = [];
        const expected: Seen[] = [];
        const oneByOne = createProjector({
          onApplied: (change) => {
            live.push({ position: change.position, before: change.before, after: change.after });
          },
        });
        for (const record of await readAll(log)) {
          if (record.kind !== 'entry') continue;
          const stateBefore = oneByOne.state();
          const applied = live.length;
          oneByOne.apply({
            position: record.position,
            event: record.event,
            ...(record.receivedAt === undefined ? {} : { receivedAt: record.receivedAt }),
          });
          if (live.length > applied) {
            const event = record.event as Change['event'];
            expected.push({
              position: record.position,
              before: touchedViewsOf(new WorkingCopy(stateBefore), event),
              after: touchedViewsOf(new WorkingCopy(oneByOne.state()), event),
            });
          }
        }
        expect(live).toEqual(expected);
        expect(bulk).toEqual(expected);
      }),
      { numRuns: count(60, 600) },
    );
  });

  it('stay as they were when read, though later events write the same records', () => {
    const kept: TouchedViews[] = [];
    const projector = createProjector({ onApplied: (change) => kept.push(change.after) });
    projector.apply({
      position: 1,
      event: events.signRequestSent(),
      receivedAt: '2026-01-01T00:00:00.000Z',
    });
    projector.apply({
      position: 2,
      event: events.signRequestDeclined(),
      receivedAt: '2026-01-02T00:00:00.000Z',
    });
    expect(kept[0]?.signRequest?.status).toBe('sent');
    expect(kept[0]?.signRequest?.lastEventAt).toBe('2026-01-01T00:00:00.000Z');
    expect(kept[1]?.signRequest?.status).toBe('declined');
  });

  it('can no longer be made once onApplied has returned: a clear TypeError, like a revoked draft', () => {
    const changes: Change[] = [];
    const projector = createProjector({
      onApplied: (change) => {
        changes.push(change);
        if (change.position === 7) void change.after; // read in time: stays readable
      },
    });
    projector.apply({ position: 7, event: events.signRequestSent() });
    projector.apply({ position: 8, event: events.signRequestDeclined() });
    const [read, unread] = changes;
    expect(read?.after.signRequest?.status).toBe('sent');
    expect(() => read?.before).toThrow(
      /change\.before of position 7 was first read after onApplied returned/,
    );
    expect(() => unread?.after).toThrow(TypeError);
    expect(() => unread?.before).toThrow(/change\.before of position 8/);
  });

  it('show in util.inspect, while valid and, as far as they were read, after', () => {
    let during = '';
    let change: Change | undefined;
    const projector = createProjector({
      onApplied: (applied) => {
        during = inspect(applied, { depth: 4 });
        change = applied;
      },
    });
    projector.apply({ position: 1, event: events.signRequestSent() });
    expect(during).toMatch(/after: \{\s+signRequest: \{[^}]*status: 'sent'/);
    expect(during).toContain('before: {}');
    // Read while valid by the inspect above: still shown.
    expect(inspect(change, { depth: 4 })).toMatch(/status: 'sent'/);
    const unread: Change[] = [];
    createProjector({ onApplied: (applied) => unread.push(applied) }).apply({
      position: 1,
      event: events.signRequestSent(),
    });
    expect(inspect(unread[0])).toContain("after: '[not read while onApplied ran]'");
  });

  it('serialise with their views while valid (JSON.stringify)', () => {
    let text = '';
    const projector = createProjector({
      onApplied: (change) => {
        text = JSON.stringify(change);
      },
    });
    projector.apply({ position: 1, event: events.signRequestSent(), deliveryId: 'd' });
    const parsed = JSON.parse(text);
    expect(Object.keys(parsed)).toEqual(['event', 'position', 'deliveryId', 'before', 'after']);
    expect(parsed.before).toEqual({});
    expect(parsed.after.signRequest.status).toBe('sent');
  });
});

/** What `change.state` must hold, read with the public queries from a published state, as lists. */
const scopeOf = (state: ProjectionState, event: Change['event']) => {
  if (!('signRequestId' in event)) {
    const template = getTemplate(state, event.templateId);
    return {
      templates: template === undefined ? [] : [template],
      signRequests: [],
      participants: [],
    };
  }
  const request = getSignRequest(state, event.signRequestId);
  const ofRequest = [...listParticipants(state, event.signRequestId)].sort((a, b) => a.id - b.id);
  return {
    templates: [],
    signRequests: request === undefined ? [] : [request],
    participants: ofRequest.length === 0 ? [] : [ofRequest],
  };
};

/** A state as lists, in its Maps' order (which `toEqual` on Maps does not look at). */
const listsOf = (state: ProjectionState) => ({
  templates: [...state.templates.values()],
  signRequests: [...state.signRequests.values()],
  participants: [...state.participants.values()].map((ofRequest) => [...ofRequest.values()]),
});

describe("the state of a change (the event's sign request with all its participants, or its template)", () => {
  it('equals the published state after each applied event, as far as the event goes, in a replay and live', async () => {
    await fc.assert(
      fc.asyncProperty(rawStreamArb(), async (items) => {
        const log = await memoryLogOf(items);
        const bulk: { position: number; state: unknown }[] = [];
        const replaying = createProjector({
          onApplied: (change) =>
            bulk.push({ position: change.position, state: listsOf(change.state) }),
        });
        expect((await replaying.replay(log)).isOk()).toBe(true);
        const expected: { position: number; state: unknown }[] = [];
        const live: { position: number; state: unknown }[] = [];
        const oneByOne = createProjector({
          onApplied: (change) =>
            live.push({ position: change.position, state: listsOf(change.state) }),
        });
        for (const record of await readAll(log)) {
          if (record.kind !== 'entry') continue;
          const applied = live.length;
          oneByOne.apply({
            position: record.position,
            event: record.event,
            ...(record.receivedAt === undefined ? {} : { receivedAt: record.receivedAt }),
          });
          if (live.length > applied) {
            expected.push({
              position: record.position,
              state: scopeOf(oneByOne.state(), record.event as Change['event']),
            });
          }
        }
        expect(live).toEqual(expected);
        expect(bulk).toEqual(expected);
      }),
      { numRuns: count(60, 600) },
    );
  });

  it('holds the other participants of the request, is deeply frozen, and fold folds on from it', () => {
    let state: ProjectionState = initialState();
    const projector = createProjector({
      onApplied: (change) => {
        if (change.event.type === 'participant-declined') state = change.state;
      },
    });
    const sent = (id: number) => events.participantSent({ participantId: id });
    const story = [sent(1), sent(2), sent(3), events.participantDeclined({ participantId: 2 })];
    for (const [i, event] of story.entries()) projector.apply({ position: i + 1, event });
    const request = signRequestId(events.participantSent().signRequestId);
    expect([...listParticipants(state, request)].map((p) => [p.id, p.status])).toEqual([
      [1, 'sent'],
      [2, 'declined'],
      [3, 'sent'],
    ]);
    expect(Object.isFrozen(getSignRequest(state, request))).toBe(true);
    expect(() => (state.signRequests as Map<unknown, unknown>).set(1, {})).toThrow();
    expect(() => {
      (getSignRequest(state, request) as { status: string }).status = 'sent';
    }).toThrow(TypeError);
    // fold folds on from it, and it stays as it was.
    const signed = fold(state, [events.participantSigned({ participantId: 1 })]).state;
    expect(signed.participants.get(request)?.get(participantId(1))?.status).toBe('signed');
    expect(state.participants.get(request)?.get(participantId(1))?.status).toBe('sent');
  });

  it('is made only while onApplied runs, like the views', () => {
    const changes: Change[] = [];
    const projector = createProjector({
      onApplied: (change) => {
        changes.push(change);
        if (change.position === 1) void change.state;
      },
    });
    projector.apply({ position: 1, event: events.signRequestSent() });
    projector.apply({ position: 2, event: events.signRequestDeclined() });
    expect(changes[0]?.state.signRequests.size).toBe(1);
    expect(() => changes[1]?.state).toThrow(
      /change\.state of position 2 was first read after onApplied returned/,
    );
  });
});
