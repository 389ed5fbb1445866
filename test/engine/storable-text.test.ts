import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unstorableText } from '../../src/engine/storable-text.js';
import { sqlText } from '../../src/postgres/event-routing.js';

/** Strings built from the troublesome code units: NUL, both halves of a pair, and plain text. */
const troublesome = fc
  .array(fc.constantFrom('\u0000', '\ud800', '\udc00', '\ud83d\ude00', 'a', 'é'), { maxLength: 8 })
  .map((parts) => parts.join(''));

describe('unstorableText', () => {
  it('names NUL and unpaired surrogates, and accepts pairs', () => {
    expect(unstorableText('a\u0000b')).toBe('contains NUL');
    expect(unstorableText('a\ud800b')).toBe('contains an unpaired UTF-16 surrogate');
    expect(unstorableText('a\udc00')).toBe('contains an unpaired UTF-16 surrogate');
    expect(unstorableText('\ud83d\ude00 d-1')).toBeUndefined();
  });

  it('accepts exactly the strings PostgreSQL text stores unchanged', () => {
    fc.assert(
      fc.property(fc.oneof(troublesome, fc.string({ unit: 'binary' })), (text) => {
        expect(unstorableText(text) === undefined).toBe(sqlText(text) === text);
      }),
    );
  });
});
