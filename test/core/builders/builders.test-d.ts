/** signfold/testing types: a member an event does not carry, or a wrong value type, is a compile error. */
import { describe, expectTypeOf, it } from 'vitest';
import type { EventOf } from '../../../src/index.js';
import { type Builder, type EventBuilders, events, given } from '../../../src/testing/index.js';

describe('builder types', () => {
  it('name one builder per event type, in camel case', () => {
    expectTypeOf<keyof EventBuilders>().toEqualTypeOf<
      | 'templateActivated'
      | 'templateInactivated'
      | 'templateDeleted'
      | 'signRequestSent'
      | 'signRequestCompleted'
      | 'signRequestDeclined'
      | 'signRequestDeleted'
      | 'participantSent'
      | 'participantViewed'
      | 'participantDownloaded'
      | 'participantSigned'
      | 'participantDeclined'
    >();
    expectTypeOf<EventBuilders['signRequestSent']>().toEqualTypeOf<Builder<'sign-request-sent'>>();
  });

  it('return the event variant of their type', () => {
    expectTypeOf(events.participantSigned()).toEqualTypeOf<EventOf<'participant-signed'>>();
    expectTypeOf(events.templateActivated({ templateId: 3 })).toEqualTypeOf<
      EventOf<'template-activated'>
    >();
  });

  it('refuse members the event does not carry', () => {
    // @ts-expect-error template events carry no signRequestId
    events.templateActivated({ signRequestId: 1 });
    // @ts-expect-error participant-viewed carries no templateId
    events.participantViewed({ templateId: 1 });
    // @ts-expect-error not a member at all
    events.signRequestSent({ signRequestID: 1 });
  });

  it('refuse values of the wrong type', () => {
    // @ts-expect-error ids are numbers
    events.participantSigned({ participantId: '7' });
    // @ts-expect-error names are strings
    events.signRequestSent({ signRequestName: 42 });
  });

  it('type expectations: plain numbers for ids, known statuses only', () => {
    given()
      .when(events.signRequestSent())
      .thenSignRequest(1000, { status: 'sent', templateId: 100 });
    // @ts-expect-error not a sign-request status
    given().when(events.signRequestSent()).thenSignRequest(1000, { status: 'signed' });
    // @ts-expect-error not a member of a sign request view
    given().when(events.signRequestSent()).thenSignRequest(1000, { viewCount: 1 });
    given().when(events.signRequestSent()).thenConflict({ kind: 'deleted', entity: 'template' });
    // @ts-expect-error not a conflict kind
    given().when(events.signRequestSent()).thenConflict({ kind: 'duplicate' });
  });
});
