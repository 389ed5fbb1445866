import fc from 'fast-check';
import type { Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { buildEvent } from '../../../src/core/builders/plain-builders.js';
import type { DecodeError } from '../../../src/core/decode-error.js';
import { decodeEvent, decodeEventJson } from '../../../src/core/events/decode-event.js';
import { encodeEvent } from '../../../src/core/events/encode-event.js';
import {
  EVENT_MEMBERS,
  EVENT_TYPES,
  type EventType,
  WIRE_PARTICIPANT_NAME,
} from '../../../src/core/events/event-members.js';
import type { SignEvent } from '../../../src/core/events/sign-event.js';
import {
  hasParticipantName,
  signEventArb,
  wireCaseArb,
  wireMutationArb,
} from '../../support/arbitraries.js';

const RUNS = { numRuns: 300 };

/** Member order of spec §6.3, written out from the spec's placeholders. */
const SPEC_ORDER: Readonly<Record<EventType, readonly string[]>> = (() => {
  const template = ['type', 'companyId', 'templateId', 'templateName', 'ownerId', 'ownerName'];
  const request = (withTemplate: boolean) => [
    'type',
    'companyId',
    'signRequestId',
    'signRequestName',
    ...(withTemplate ? ['templateId', 'templateName'] : []),
    'senderId',
    'senderName',
    'ownerId',
    'ownerName',
  ];
  const participant = (withTemplate: boolean) => [
    'type',
    'companyId',
    'signRequestId',
    'signRequestName',
    ...(withTemplate ? ['templateId', 'templateName'] : []),
    'participantId',
    'partcipantName',
    'roleId',
    'roleName',
    'senderId',
    'senderName',
    'ownerId',
    'ownerName',
  ];
  return {
    'template-activated': template,
    'template-inactivated': template,
    'template-deleted': template,
    'sign-request-sent': request(true),
    'sign-request-completed': request(true),
    'sign-request-declined': request(false),
    'sign-request-deleted': request(false),
    'participant-sent': participant(true),
    'participant-viewed': participant(false),
    'participant-downloaded': participant(false),
    'participant-signed': participant(true),
    'participant-declined': participant(false),
  };
})();

describe('encodeEvent', () => {
  it.each(EVENT_TYPES)('emits %s with the members in the order of spec 6.3', (type) => {
    expect(Object.keys(encodeEvent(buildEvent(type)))).toEqual(SPEC_ORDER[type]);
  });

  it.each(EVENT_TYPES.filter(hasParticipantName))(
    '%s carries the participant name as partcipantName only (spec 6.1 rule 2)',
    (type) => {
      const wire = encodeEvent(buildEvent(type, { participantName: 'Ada' }));
      expect(wire.partcipantName).toBe('Ada');
      expect(Object.hasOwn(wire, 'participantName')).toBe(false);
    },
  );

  it.each(EVENT_TYPES.filter((t) => !hasParticipantName(t)))(
    '%s carries no participant name at all',
    (type) => {
      const wire = encodeEvent(buildEvent(type));
      expect(Object.hasOwn(wire, 'partcipantName')).toBe(false);
      expect(Object.hasOwn(wire, 'participantName')).toBe(false);
    },
  );

  it('copies the values unchanged', () => {
    const event = buildEvent('participant-signed', {
      companyId: 3,
      roleName: 'Witness',
      templateId: 0,
    });
    expect(encodeEvent(event)).toMatchObject({
      type: 'participant-signed',
      companyId: 3,
      roleName: 'Witness',
      templateId: 0,
    });
  });

  it('is accepted by the strict decoder and survives JSON text', () => {
    fc.assert(
      fc.property(signEventArb(), (event) => {
        const wire = encodeEvent(event);
        expect(decodeEvent(wire, { strict: true })._unsafeUnwrap()).toEqual(event);
        expect(decodeEventJson(JSON.stringify(wire))._unsafeUnwrap()).toEqual(event);
      }),
      RUNS,
    );
  });
});

describe('round trip', () => {
  it('decodeEvent(encodeEvent(e)) deep-equals e for every valid event', () => {
    fc.assert(
      fc.property(signEventArb(), (event) => {
        expect(decodeEvent(encodeEvent(event))._unsafeUnwrap()).toStrictEqual(event);
      }),
      RUNS,
    );
  });

  it('encodeEvent(decodeEvent(w)) is w up to member order and name spelling', () => {
    fc.assert(
      fc.property(wireCaseArb(), ({ wire, expected }) => {
        const decoded = decodeEvent(wire)._unsafeUnwrap();
        expect(decoded).toStrictEqual(expected);
        expect(encodeEvent(decoded)).toStrictEqual(encodeEvent(expected));
      }),
      RUNS,
    );
  });
});

describe('decoder totality', () => {
  /** Every member name some event type defines, plus `type` and the wire misspelling. */
  const KNOWN_NAMES: readonly string[] = [
    '',
    'type',
    WIRE_PARTICIPANT_NAME,
    ...new Set(EVENT_TYPES.flatMap((type) => EVENT_MEMBERS[type])),
  ];
  /**
   * A decode result is an event of a known type, or an error with a message and
   * a path naming a member (known, or one of the input's own keys) or `''`.
   */
  const checkResult = (result: Result<SignEvent, DecodeError>, input: unknown) => {
    if (result.isOk()) {
      expect(EVENT_TYPES).toContain(result.value.type);
      return;
    }
    expect(result.error.message.length).toBeGreaterThan(0);
    const ownKeys = typeof input === 'object' && input !== null ? Object.keys(input) : [];
    expect([...KNOWN_NAMES, ...ownKeys]).toContain(result.error.path);
  };
  const neverThrows = (input: unknown, strict: boolean) => {
    let result: Result<SignEvent, DecodeError> | undefined;
    expect(() => {
      result = decodeEvent(input, { strict });
    }).not.toThrow();
    if (result === undefined) throw new Error('unreachable: decodeEvent returned nothing');
    checkResult(result, input);
  };

  it('never throws on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, strict) => neverThrows(value, strict)),
      RUNS,
    );
  });

  it('never throws on arbitrary JS values', () => {
    fc.assert(
      fc.property(
        fc.anything({ withNullPrototype: true, withMap: true, withSet: true }),
        fc.boolean(),
        (value, strict) => neverThrows(value, strict),
      ),
      RUNS,
    );
  });

  it('never throws on JSON objects that carry a valid type', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...EVENT_TYPES),
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.boolean(),
        (type, rest, strict) => neverThrows({ ...rest, type }, strict),
      ),
      RUNS,
    );
  });

  it('never throws on arbitrary text given to decodeEventJson', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        let result: Result<SignEvent, DecodeError> | undefined;
        expect(() => {
          result = decodeEventJson(text);
        }).not.toThrow();
        if (result === undefined) throw new Error('unreachable: decodeEventJson returned nothing');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          // Not JSON: the error's path must be ''.
        }
        checkResult(result, parsed);
      }),
      RUNS,
    );
  });

  it('rejects every mutation of a valid wire event with the right kind and path', () => {
    fc.assert(
      fc.property(wireMutationArb, (mutation) => {
        const result = decodeEvent(mutation.wire);
        expect(result.isErr(), mutation.description).toBe(true);
        const error = result._unsafeUnwrapErr();
        expect(error.kind, mutation.description).toBe(mutation.expectedKind);
        expect(error.path, mutation.description).toBe(mutation.expectedPath);
        expect(error.message.length).toBeGreaterThan(0);
        // And through JSON text, where the mutation survives serialisation.
        // JSON has no Infinity or NaN: stand in a boolean, wrong for every member (ids and strings;
        // a string stand-in made a retyped string member valid again).
        const text = JSON.stringify(mutation.wire, (_k, v) =>
          typeof v === 'number' && !Number.isFinite(v) ? true : v,
        );
        expect(decodeEventJson(text).isErr(), mutation.description).toBe(true);
      }),
      RUNS,
    );
  });

  it('renaming one participant-name spelling to the other is still valid', () => {
    const wire = encodeEvent(buildEvent('participant-viewed'));
    const { partcipantName, ...rest } = wire;
    expect(decodeEvent({ ...rest, participantName: partcipantName }).isOk()).toBe(true);
  });
});
