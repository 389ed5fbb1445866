/** envelopeEventText: the `event` member's text exactly as an envelope line writes it. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { envelopeEventText } from '../../../src/postgres/log/envelope-event-text.js';

describe('envelopeEventText', () => {
  it('finds the text whose parse is the parsed line’s event, whatever the spacing and member order', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
        fc.integer({ min: 1 }),
        fc.constantFrom(0, 1, 2, '\t'),
        fc.boolean(),
        (event, extra, position, indent, eventFirst) => {
          const members = eventFirst
            ? { event, ...extra, position }
            : { ...extra, position, event };
          const line = JSON.stringify(members, null, indent);
          const text = envelopeEventText(line);
          expect(text).toBeDefined();
          expect(JSON.parse(text ?? '')).toEqual(JSON.parse(line).event);
        },
      ),
    );
  });

  it('keeps what JSON.stringify would change (1e400, -0) and takes the last of repeated members', () => {
    expect(envelopeEventText('{"position":1,"event":{"id":1e400,"z":-0}}')).toBe(
      '{"id":1e400,"z":-0}',
    );
    expect(envelopeEventText('{"position":1,"event":1,"event":"a\\"}"}')).toBe('"a\\"}"');
  });

  it('is undefined for a bare event and for a position that is not a number', () => {
    expect(envelopeEventText('{"type":"template-deleted","companyId":1}')).toBeUndefined();
    expect(envelopeEventText('{"position":"3","event":{}}')).toBeUndefined();
    expect(envelopeEventText('{"position":3}')).toBeUndefined();
  });
});
