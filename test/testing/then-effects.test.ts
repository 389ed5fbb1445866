import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { defineReactor } from '../../src/core/reactors/define-reactor.js';
import type { Change } from '../../src/core/reactors/reactor-types.js';
import { events, given } from '../../src/testing/index.js';

const reminders = defineReactor({
  name: 'reminders',
  react: (change: Change) => {
    const { event, after, before } = change;
    if (event.type === 'participant-sent') {
      return [{ type: 'remind', key: `p${event.participantId}`, after: 72 * 3_600_000 }];
    }
    if (event.type === 'participant-signed') {
      return [
        { type: 'cancel', key: `p${event.participantId}` },
        {
          type: 'note',
          from: before.participant?.status ?? null,
          to: after.participant?.status ?? null,
          received: change.receivedAt ?? null,
          position: change.position,
        },
      ];
    }
    return [];
  },
});

describe('given/when/thenEffects', () => {
  it('passes react the change of the event under test (position n + 1, receivedAt, views)', () => {
    given(events.signRequestSent(), events.participantSent())
      .when(events.participantSigned(), { receivedAt: '2026-01-01T00:00:00.000Z', deliveryId: 'd' })
      .thenEffects(reminders, [
        { type: 'cancel', key: 'p5' },
        {
          type: 'note',
          from: 'sent',
          to: 'signed',
          received: '2026-01-01T00:00:00.000Z',
          position: 3,
        },
      ]);
    given(events.signRequestSent())
      .when(events.participantSent())
      .thenEffects({ name: 'plain', react: () => [{ type: 'x' }] }, [{ type: 'x' }]);
  });

  it('calls react as the engines do: a view first read after react returned throws there too', () => {
    const kept: Change[] = [];
    const keeper = defineReactor({
      name: 'keeper',
      react: (change: Change) => {
        kept.push(change);
        return [{ type: 'seen', status: change.after.signRequest?.status ?? null }];
      },
    });
    given(events.signRequestSent())
      .when(events.signRequestDeclined())
      .thenEffects(keeper, [{ type: 'seen', status: 'declined' }]);
    expect(kept[0]?.after.signRequest?.status).toBe('declined'); // read in time: stays readable
    expect(() => kept[0]?.before).toThrow(/change\.before of position 2 was first read after/);
  });

  it('expects no effects for an event that did not apply (a no-op or a conflict)', () => {
    given(events.signRequestSent(), events.participantSent())
      .when(events.participantSent())
      .thenNoOp()
      .thenEffects(reminders, []);
    expect(() =>
      given(events.signRequestSent(), events.participantSent())
        .when(events.participantSent())
        .thenEffects(reminders, [{ type: 'remind' }]),
    ).toThrow(/did not apply/);
  });

  it('fails with an AssertionError carrying actual and expected for a diff', () => {
    try {
      given(events.signRequestSent())
        .when(events.participantSent())
        .thenEffects(reminders, [{ type: 'remind', key: 'p5', after: 1 }]);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AssertionError);
      expect((error as AssertionError).actual).toEqual([
        { type: 'remind', key: 'p5', after: 72 * 3_600_000 },
      ]);
      expect((error as AssertionError).message).toMatch(
        /reactor "reminders" returned other effects/,
      );
    }
  });
});
