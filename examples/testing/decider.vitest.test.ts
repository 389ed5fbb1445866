// The service's side of the wire, specified with signfold/testing under vitest: given the events so
// far, when a command is decided, then the events the service emits, or the rule that refuses it.
// Run by signfold's own suite (vitest.config.ts includes examples/testing); shown in docs/decider.md.
import { type Command, decide, fold, initialState } from 'signfold';
import { events, given } from 'signfold/testing';
import { describe, expect, it } from 'vitest';

const sent = events.signRequestSent({ signRequestId: 42 });
const toAda = events.participantSent({ signRequestId: 42, participantId: 7 });
const adaSigns: Command = { type: 'sign', signRequestId: 42, participantId: 7 };

describe('the service decides', () => {
  it('completes a request on its last signature, in the same decision', () => {
    given(sent, toAda)
      .when(adaSigns)
      .then(
        events.participantSigned({ signRequestId: 42, participantId: 7 }),
        events.signRequestCompleted({ signRequestId: 42 }),
      )
      .thenSignRequest(42, { status: 'completed' });
  });

  it('refuses a signature after a decline, by the fold’s own rule', () => {
    given(sent, toAda, events.participantDeclined({ signRequestId: 42, participantId: 7 }))
      .when(adaSigns)
      .thenRejected('invalid-transition');
  });

  it('decides against any state, and its events fold to what it decided', () => {
    const { state } = fold(initialState(), [sent, toAda]);
    const decided = decide(adaSigns, state);
    expect(decided.isOk() && fold(state, decided.value).conflicts).toEqual([]);
  });
});
