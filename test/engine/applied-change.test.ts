import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { events } from '../../src/core/builders/plain-builders.js';
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
