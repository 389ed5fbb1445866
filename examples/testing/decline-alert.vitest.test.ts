// A business rule on top of signfold's projections, specified with signfold/testing under vitest.
// Run by signfold's own suite (vitest.config.ts includes examples/testing); shown in docs/testing.md.
import { getParticipant, type ProjectionState } from 'signfold';
import { events, given } from 'signfold/testing';
import { describe, expect, it } from 'vitest';

/** The rule under test: alert the sender when a participant declines. */
const declineAlert = (state: ProjectionState, request: number, participant: number) => {
  const view = getParticipant(state, request, participant);
  return view?.status === 'declined' ? `${view.name} declined sign request ${request}` : undefined;
};

describe('decline alert', () => {
  const sent = events.signRequestSent({ signRequestId: 42 });
  const toAda = events.participantSent({ signRequestId: 42, participantId: 7 });

  it('fires when a participant declines', () => {
    const { state } = given(sent, toAda)
      .when(events.participantDeclined({ signRequestId: 42, participantId: 7 }))
      .thenParticipant(42, 7, { status: 'declined' })
      .thenSignRequest(42, { status: 'sent' });
    expect(declineAlert(state, 42, 7)).toBe('Ada Lovelace declined sign request 42');
  });

  it('stays silent when a late decline conflicts with a signed participant', () => {
    const { state } = given(
      sent,
      toAda,
      events.participantSigned({ signRequestId: 42, participantId: 7 }),
    )
      .when(events.participantDeclined({ signRequestId: 42, participantId: 7 }))
      .thenConflict({ kind: 'invalid-transition', entity: 'participant' });
    expect(declineAlert(state, 42, 7)).toBeUndefined();
  });
});
