/**
 * The views' "since when": sentAt, viewedAt and lastEventAt hold the
 * receivedAt of the events that moved them; bare lines leave them as they
 * were; no-ops and conflicts touch nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../../src/core/builders/plain-builders.js';
import type { SignEvent } from '../../../src/core/events/sign-event.js';
import { participantId, signRequestId } from '../../../src/core/ids.js';
import {
  initialState,
  type ProjectionState,
} from '../../../src/core/projections/projection-state.js';
import { fold, reduce } from '../../../src/core/projections/reduce.js';

const request = (state: ProjectionState) => state.signRequests.get(signRequestId(1000));
const participant = (state: ProjectionState, id = 5) =>
  state.participants.get(signRequestId(1000))?.get(participantId(id));

const T = (hour: number) => new Date(Date.UTC(2026, 0, 1, hour)).toISOString();

describe('event times of the views', () => {
  it('stamps sentAt, viewedAt and lastEventAt with the receivedAt of the events that moved them', () => {
    const { state } = fold(
      initialState(),
      [
        buildEvent('sign-request-sent'),
        buildEvent('participant-sent'),
        buildEvent('participant-viewed'),
        buildEvent('participant-viewed'),
        buildEvent('participant-signed'),
      ],
      [T(1), T(2), T(3), T(4), T(5)],
    );
    expect(request(state)).toMatchObject({ sentAt: T(1), lastEventAt: T(5) });
    // The second view is applied (it counts) but does not move the status: viewedAt stays the first.
    expect(participant(state)).toMatchObject({
      sentAt: T(2),
      viewedAt: T(3),
      lastEventAt: T(5),
      viewCount: 2,
    });
  });

  it('a participant event that implies the send stamps the request sentAt', () => {
    const { state } = fold(initialState(), [buildEvent('participant-viewed')], [T(7)]);
    expect(request(state)).toMatchObject({ status: 'sent', sentAt: T(7), lastEventAt: T(7) });
    expect(participant(state)).toMatchObject({ status: 'viewed', sentAt: null, viewedAt: T(7) });
  });

  it('bare lines (no receivedAt) leave the times as they were; reduce without a time gives null', () => {
    const { state } = fold(
      initialState(),
      [
        buildEvent('sign-request-sent'),
        buildEvent('participant-sent'),
        buildEvent('participant-signed'),
      ],
      [T(1), undefined, undefined],
    );
    expect(request(state)).toMatchObject({ sentAt: T(1), lastEventAt: T(1) });
    expect(participant(state)).toMatchObject({ sentAt: null, viewedAt: null, lastEventAt: null });
    const bare = reduce(initialState(), buildEvent('sign-request-sent'))._unsafeUnwrap();
    expect(request(bare)).toMatchObject({ sentAt: null, lastEventAt: null });
  });

  it('no-ops and conflicts change no time', () => {
    const { state, conflicts } = fold(
      initialState(),
      [
        buildEvent('sign-request-sent'),
        buildEvent('sign-request-sent'),
        buildEvent('sign-request-declined'),
        buildEvent('sign-request-completed'),
      ],
      [T(1), T(2), T(3), T(4)],
    );
    expect(conflicts).toHaveLength(1);
    expect(request(state)).toMatchObject({ status: 'declined', sentAt: T(1), lastEventAt: T(3) });
  });

  it('lastEventAt is the receivedAt of the last event that changed the view (a law)', () => {
    const types = [
      'sign-request-sent',
      'participant-sent',
      'participant-viewed',
      'participant-downloaded',
      'participant-signed',
      'participant-declined',
      'sign-request-completed',
      'sign-request-declined',
    ] as const;
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            type: fc.constantFrom(...types),
            p: fc.constantFrom(5, 6),
            timed: fc.boolean(),
          }),
          {
            maxLength: 25,
          },
        ),
        (items) => {
          let state = initialState();
          let expectedRequest: string | null = null;
          const expectedParticipant = new Map<number, string | null>();
          items.forEach((item, i) => {
            const event: SignEvent = buildEvent(item.type, { participantId: item.p });
            const at = item.timed ? T(i) : undefined;
            const next = reduce(state, event, at);
            if (next.isErr() || next.value === state) return;
            const changed = next.value;
            if (at !== undefined) {
              expectedRequest = at;
              if ('participantId' in event) expectedParticipant.set(item.p, at);
            }
            state = changed;
          });
          expect(request(state)?.lastEventAt ?? null).toBe(request(state) ? expectedRequest : null);
          for (const [id, at] of expectedParticipant)
            expect(participant(state, id)?.lastEventAt).toBe(at);
        },
      ),
    );
  });
});
