/**
 * `observation()` and `given(...).whenObserved(...)`: an observation record
 * in a specification behaves as the projector applies it (repair, no-op,
 * conflict), and `thenEffects` sees what react returned for each event the
 * repair stands for.
 */
import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { defineReactor } from '../../src/core/reactors/index.js';
import { events, given, observation } from '../../src/testing/index.js';

const documents = defineReactor({
  name: 'documents',
  react: ({ event, observation }) =>
    event.type === 'sign-request-completed'
      ? [
          {
            type: 'fetch-document',
            signRequestId: event.signRequestId,
            repaired: observation !== undefined,
          },
        ]
      : event.type === 'participant-signed'
        ? [{ type: 'thank', participantId: event.participantId }]
        : [],
  execute: async () => undefined,
});

describe('whenObserved', () => {
  it('repairs the lost end of a request, and the reactor reacts to the events it stands for', () => {
    given(events.signRequestSent(), events.participantSent())
      .whenObserved(observation())
      .thenApplied()
      .thenSignRequest(1000, { status: 'completed' })
      .thenParticipant(1000, 5, { status: 'signed' })
      .thenEffects(documents, [
        { type: 'thank', participantId: 5 },
        { type: 'fetch-document', signRequestId: 1000, repaired: true },
      ]);
  });

  it('is a no-op when the state already agrees, with no effects', () => {
    given(
      events.signRequestSent(),
      events.participantSent(),
      events.participantSigned(),
      events.signRequestCompleted(),
    )
      .whenObserved(observation())
      .thenNoOp()
      .thenEffects(documents, []);
  });

  it('conflicts when the service reports a status behind the state, or another company', () => {
    given(events.signRequestSent(), events.signRequestCompleted())
      .whenObserved(observation({ signRequest: { status: 'Sent', participants: [] } }))
      .thenConflict({ kind: 'invalid-transition' })
      .thenSignRequest(1000, { status: 'completed' });
    given(events.signRequestSent())
      .whenObserved(observation({ companyId: 2 }))
      .thenConflict({ kind: 'company-mismatch' });
  });

  it('fails with an AssertionError naming the member for an invalid representation or record', () => {
    expect(() => observation({ signRequest: { status: 'Lost' } })).toThrow(AssertionError);
    expect(() => observation({ signRequest: { status: 'Lost' } })).toThrow(/status/);
    expect(() => given().whenObserved({ ...observation(), fetchedAt: 'now' })).toThrow(
      /the observation under test is invalid: fetchedAt: /,
    );
  });

  it('a failed check shows the observation in its story', () => {
    expect(() =>
      given(events.signRequestSent())
        .whenObserved(observation())
        .thenSignRequest(1000, { status: 'declined' }),
    ).toThrow(/when observed: \{ record: 'observation'/);
  });
});
