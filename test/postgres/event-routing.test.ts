/** The routing columns read ids by the decoder's own rule: a value it rejects is never a key. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEvent } from '../../src/core/events/decode-event.js';
import { routingOf } from '../../src/postgres/event-routing.js';

const base = {
  type: 'participant-viewed',
  companyId: 1,
  signRequestId: 5001,
  signRequestName: 'x',
  participantId: 3,
  partcipantName: 'p',
  roleId: 7,
  roleName: 'r',
  senderId: 20,
  senderName: 's',
  ownerId: 10,
  ownerName: 'o',
};

const idValue = fc.oneof(
  fc.integer(),
  fc.double(),
  // Infinity and 2^63 as JSON reads 1e400 and 9223372036854775808.
  fc.constantFrom(
    -0,
    0.5,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    2 ** 53,
    2 ** 63,
    Number.NaN,
  ),
  fc.bigInt().map(Number),
  fc.string(),
  fc.constant(null),
  fc.object(),
);

describe('routingOf', () => {
  it('stores an id exactly when the decoder accepts it, as the number the decoder reads', () => {
    fc.assert(
      fc.property(fc.constantFrom('companyId', 'signRequestId'), idValue, (member, value) => {
        const event = { ...base, [member]: value };
        const decoded = decodeEvent(event);
        const column = routingOf(event)[member];
        if (decoded.isOk()) expect(column).toBe((decoded.value as Record<string, unknown>)[member]);
        else expect(column).toBeNull();
        if (column !== null) expect(Object.is(column, -0)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
