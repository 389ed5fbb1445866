/** signfold/testing: event builders produce valid events of each type, with overrides. */
import { AssertionError } from 'node:assert';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEvent, EVENT_MEMBERS, EVENT_TYPES, encodeEvent } from '../../../src/index.js';
import { buildEvent, EVENT_DEFAULTS, events } from '../../../src/testing/index.js';

const camel = (type: string) => type.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());

describe('event builders', () => {
  it('have one builder per event type, each producing exactly its members from the defaults', () => {
    expect(Object.keys(events).sort()).toEqual(EVENT_TYPES.map(camel).sort());
    for (const type of EVENT_TYPES) {
      const build = events[camel(type) as keyof typeof events] as () => Record<string, unknown>;
      const event = build();
      expect(Object.keys(event).sort()).toEqual(['type', ...EVENT_MEMBERS[type]].sort());
      expect(event.type).toBe(type);
      for (const member of EVENT_MEMBERS[type]) expect(event[member]).toBe(EVENT_DEFAULTS[member]);
    }
  });

  it('apply overrides and produce what the decoder accepts (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...EVENT_TYPES),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.string({ minLength: 1 }),
        (type, id, name) => {
          const event = buildEvent(type, { companyId: id, ownerName: name });
          expect(event).toMatchObject({ companyId: id, ownerName: name });
          expect(decodeEvent(encodeEvent(event))._unsafeUnwrap()).toEqual(event);
        },
      ),
    );
  });

  it('throw an AssertionError naming the member when an override is invalid', () => {
    expect(() => events.participantSigned({ participantId: 1.5 })).toThrow(AssertionError);
    expect(() => events.participantSigned({ participantId: 1.5 })).toThrow(
      /^cannot build a participant-signed event: participantId: /,
    );
  });
});
