/**
 * Type tests (vitest typecheck mode, and `tsc --noEmit`): the event union is
 * exactly the 12 types of spec table 6.2, dispatch covers all of them, and a
 * 13th type cannot be added without the exhaustive match failing the build.
 */
import { match } from 'ts-pattern';
import { describe, expectTypeOf, it } from 'vitest';
import type { EVENT_MEMBERS, EventType } from '../../../src/core/events/event-members.js';
import type {
  EventOf,
  ParticipantEvent,
  SignEvent,
  SignRequestEvent,
  TemplateEvent,
} from '../../../src/core/events/sign-event.js';
import type { ParticipantId, RoleId, SignRequestId, TemplateId } from '../../../src/core/ids.js';
import type { Conflict, ConflictKind } from '../../../src/core/projections/conflict.js';
import { type EventHandler, handlerFor } from '../../../src/core/projections/dispatch.js';

type TwelveTypes =
  | 'template-activated'
  | 'template-inactivated'
  | 'template-deleted'
  | 'sign-request-sent'
  | 'sign-request-completed'
  | 'sign-request-declined'
  | 'sign-request-deleted'
  | 'participant-sent'
  | 'participant-viewed'
  | 'participant-downloaded'
  | 'participant-signed'
  | 'participant-declined';

describe('the event union', () => {
  it('EventType is exactly the 12 literal types', () => {
    expectTypeOf<EventType>().toEqualTypeOf<TwelveTypes>();
  });

  it("SignEvent['type'] equals EventType, and the member table has one entry per type", () => {
    expectTypeOf<SignEvent['type']>().toEqualTypeOf<EventType>();
    expectTypeOf<keyof typeof EVENT_MEMBERS>().toEqualTypeOf<EventType>();
  });

  it('the three families partition the union', () => {
    expectTypeOf<TemplateEvent | SignRequestEvent | ParticipantEvent>().toEqualTypeOf<SignEvent>();
    expectTypeOf<TemplateEvent['type']>().toEqualTypeOf<
      'template-activated' | 'template-inactivated' | 'template-deleted'
    >();
  });

  it('variants carry exactly their members, with branded ids', () => {
    expectTypeOf<EventOf<'sign-request-declined'>>().not.toHaveProperty('templateId');
    expectTypeOf<EventOf<'participant-viewed'>>().not.toHaveProperty('templateId');
    expectTypeOf<EventOf<'template-deleted'>>().not.toHaveProperty('signRequestId');
    expectTypeOf<EventOf<'participant-signed'>['templateId']>().toEqualTypeOf<TemplateId>();
    expectTypeOf<EventOf<'participant-sent'>['roleId']>().toEqualTypeOf<RoleId>();
    expectTypeOf<EventOf<'participant-declined'>['participantId']>().toEqualTypeOf<ParticipantId>();
    expectTypeOf<EventOf<'sign-request-sent'>['signRequestId']>().toEqualTypeOf<SignRequestId>();
    expectTypeOf<EventOf<'participant-sent'>>().toHaveProperty('participantName');
    expectTypeOf<EventOf<'participant-sent'>>().not.toHaveProperty('partcipantName');
    // A participant id is not a sign-request id.
    expectTypeOf<ParticipantId>().not.toEqualTypeOf<SignRequestId>();
  });

  it('narrowing on type gives the variant', () => {
    const pick = (event: SignEvent) => {
      if (event.type === 'template-deleted')
        expectTypeOf(event).toEqualTypeOf<EventOf<'template-deleted'>>();
    };
    expectTypeOf(pick).parameter(0).toEqualTypeOf<SignEvent>();
  });
});

describe('dispatch', () => {
  it('handlerFor accepts every EventType and its handlers together cover every event', () => {
    expectTypeOf(handlerFor).parameter(0).toEqualTypeOf<EventType>();
    type Handled = Parameters<ReturnType<typeof handlerFor>>[1];
    expectTypeOf<Handled>().toEqualTypeOf<SignEvent>();
    expectTypeOf<Handled['type']>().toEqualTypeOf<EventType>();
  });

  it('EventHandler defaults to handling any event', () => {
    expectTypeOf<Parameters<EventHandler>[1]>().toEqualTypeOf<SignEvent>();
  });

  it('the same 12 arms are exhaustive over EventType', () => {
    const arms = (type: EventType) =>
      match(type)
        .with('template-activated', 'template-inactivated', 'template-deleted', () => 1)
        .with(
          'sign-request-sent',
          'sign-request-completed',
          'sign-request-declined',
          'sign-request-deleted',
          () => 2,
        )
        .with(
          'participant-sent',
          'participant-viewed',
          'participant-downloaded',
          'participant-signed',
          'participant-declined',
          () => 3,
        )
        .exhaustive();
    expectTypeOf(arms).returns.toEqualTypeOf<number>();
  });

  it('a 13th type makes the same exhaustive match a type error (the build breaks)', () => {
    const withThirteenth = (type: EventType | 'participant-reminded') => {
      const partial = match<EventType | 'participant-reminded'>(type)
        .with('template-activated', 'template-inactivated', 'template-deleted', () => 1)
        .with(
          'sign-request-sent',
          'sign-request-completed',
          'sign-request-declined',
          'sign-request-deleted',
          () => 2,
        )
        .with(
          'participant-sent',
          'participant-viewed',
          'participant-downloaded',
          'participant-signed',
          'participant-declined',
          () => 3,
        );
      // @ts-expect-error 'participant-reminded' has no arm, so `.exhaustive()` is not callable
      return partial.exhaustive();
    };
    expectTypeOf(withThirteenth).parameter(0).toEqualTypeOf<EventType | 'participant-reminded'>();
  });
});

describe('conflicts', () => {
  it("Conflict['kind'] is exactly the four kinds", () => {
    expectTypeOf<Conflict['kind']>().toEqualTypeOf<
      'invalid-transition' | 'deleted' | 'company-mismatch' | 'reference-mismatch'
    >();
    expectTypeOf<ConflictKind>().toEqualTypeOf<Conflict['kind']>();
  });

  it('entity and kind are discriminants', () => {
    expectTypeOf<Conflict['entity']>().toEqualTypeOf<'template' | 'sign-request' | 'participant'>();
    expectTypeOf<Conflict['eventType']>().toEqualTypeOf<EventType | 'load-sign-request'>();
    expectTypeOf<Extract<Conflict, { kind: 'reference-mismatch' }>['reference']>().toEqualTypeOf<
      'templateId' | 'roleId'
    >();
    expectTypeOf<
      Extract<Conflict, { entity: 'participant' }>['signRequestId']
    >().toEqualTypeOf<SignRequestId>();
  });
});
