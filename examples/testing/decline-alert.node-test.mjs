// The same kind of specification under node:test, with no test framework installed.
// Run by signfold's own suite (`node --test` on this file); shown in docs/testing.md.
import { test } from 'node:test';
import { events, given } from 'signfold/testing';

const sent = events.signRequestSent({ signRequestId: 42 });
const toAda = events.participantSent({ signRequestId: 42, participantId: 7 });

test('a decline is recorded on the participant, not on the request', () => {
  given(sent, toAda)
    .when(events.participantDeclined({ signRequestId: 42, participantId: 7 }))
    .thenApplied()
    .thenParticipant(42, 7, { status: 'declined' })
    .thenSignRequest(42, { status: 'sent' });
});

test('a repeated view counts one more view', () => {
  const viewed = events.participantViewed({ signRequestId: 42, participantId: 7 });
  given(sent, toAda, viewed)
    .when(viewed)
    .thenParticipant(42, 7, { status: 'viewed', viewCount: 2 });
});

test('webhook JSON can be given as it arrives', () => {
  given(
    '{"type":"sign-request-sent","companyId":1,"signRequestId":42,"signRequestName":"NDA","templateId":100,"templateName":"NDA","senderId":20,"senderName":"Sam","ownerId":10,"ownerName":"Olive"}',
  )
    .when(events.signRequestCompleted({ signRequestId: 42 }))
    .thenSignRequest(42, { status: 'completed', name: 'NDA for Ada' });
});
