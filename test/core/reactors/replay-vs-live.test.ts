import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineReactor } from '../../../src/core/reactors/define-reactor.js';
import {
  planReaction,
  type ReactionPlan,
  reactInto,
} from '../../../src/core/reactors/plan-reaction.js';
import { ReactorEffects } from '../../../src/core/reactors/reactor-effects.js';
import type { Change } from '../../../src/core/reactors/reactor-types.js';
import { createProjector } from '../../../src/engine/projector.js';
import { count } from '../../reliability/fixtures/reliability-helpers.js';
import { memoryLogOf, rawStreamArb, readAll } from '../../support/engine-arbitraries.js';

const reactor = defineReactor({
  name: 'watch',
  react: ({ event, before, after }: Change) => {
    if (!('signRequestId' in event))
      return [{ type: 'template', status: after.template?.status ?? null }];
    const key = `${event.signRequestId}`;
    if (event.type === 'participant-signed' || event.type === 'sign-request-completed') {
      return [
        { type: 'cancel', key },
        {
          type: 'moved',
          from: before.signRequest?.status ?? null,
          to: after.signRequest?.status ?? null,
        },
      ];
    }
    // Nothing for some events, so the runner's path without a plan is taken too.
    return event.type === 'participant-viewed' ? [] : [{ type: 'remind', key, after: 3 }];
  },
});

const derive = (plans: ReactionPlan[]) => {
  const book = new ReactorEffects();
  for (const plan of plans) book.applyPlan(plan);
  return book.entries();
};

describe('effects derived in a replay equal those derived live', () => {
  it('event by event: same plans, same book', async () => {
    await fc.assert(
      fc.asyncProperty(rawStreamArb(), async (items) => {
        const log = await memoryLogOf(items);
        const replayed: ReactionPlan[] = [];
        const bulk = createProjector({
          onApplied: (change) => replayed.push(planReaction(reactor, change)),
        });
        expect((await bulk.replay(log)).isOk()).toBe(true);

        const live: ReactionPlan[] = [];
        const oneByOne = createProjector({
          onApplied: (change) => live.push(planReaction(reactor, change)),
        });
        for (const record of await readAll(log)) {
          if (record.kind !== 'entry') continue;
          oneByOne.apply({
            position: record.position,
            event: record.event,
            ...(record.receivedAt === undefined ? {} : { receivedAt: record.receivedAt }),
            ...(record.deliveryId === undefined ? {} : { deliveryId: record.deliveryId }),
          });
        }
        expect(live).toEqual(replayed);
        expect(derive(live)).toEqual(derive(replayed));

        // What the file runner does per event (no plan object when react returns nothing)
        // leaves the same book, watermark included.
        const direct = new ReactorEffects();
        const viaPlans = new ReactorEffects();
        const runner = createProjector({
          onApplied: (change) => reactInto(direct, reactor, change),
        });
        expect((await runner.replay(log)).isOk()).toBe(true);
        for (const plan of replayed) viaPlans.applyPlan(plan);
        expect(direct.entries()).toEqual(viaPlans.entries());
        expect(direct.watermarks()).toEqual(viaPlans.watermarks());
      }),
      { numRuns: count(40, 400) },
    );
  });
});
