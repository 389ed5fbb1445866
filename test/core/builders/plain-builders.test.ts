/** signfold/core's builders: the same events as signfold/testing's, a plain Error for an invalid override. */
import { AssertionError } from 'node:assert';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEvent, events } from '../../../src/core/builders/plain-builders.js';
import { EVENT_TYPES } from '../../../src/index.js';
import * as testing from '../../../src/testing/index.js';

describe('the builders of signfold/core', () => {
  it('build the same events as those of signfold/testing (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...EVENT_TYPES),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.string({ minLength: 1 }),
        (type, id, name) => {
          const overrides = { companyId: id, ownerName: name };
          expect(buildEvent(type, overrides)).toEqual(testing.buildEvent(type, overrides));
        },
      ),
    );
    expect(Object.keys(events)).toEqual(Object.keys(testing.events));
    expect(events.participantSigned({ participantId: 7 })).toEqual(
      testing.events.participantSigned({ participantId: 7 }),
    );
  });

  it('throw a plain Error with the same message, the DecodeError as its cause', () => {
    const thrown = (() => {
      try {
        events.participantSigned({ participantId: 1.5 });
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(AssertionError);
    expect((thrown as Error).message).toMatch(
      /^cannot build a participant-signed event: participantId: /,
    );
    expect((thrown as Error).cause).toMatchObject({ path: 'participantId' });
    expect(() => testing.events.participantSigned({ participantId: 1.5 })).toThrow(
      (thrown as Error).message,
    );
  });
});
