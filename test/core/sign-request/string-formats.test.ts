import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64Problem } from '../../../src/core/sign-request/base64.js';
import {
  STRING_FORMATS,
  type StringFormatName,
} from '../../../src/core/sign-request/string-formats.js';

const problem = (format: StringFormatName, text: string) => STRING_FORMATS[format].problem(text);
const valid = (format: StringFormatName, text: string) => problem(format, text) === undefined;

/** What the generated JSON Schema keywords of a format say about `text`. */
const schemaAccepts = (format: StringFormatName, text: string): boolean => {
  const schema: { pattern?: string; minLength?: number; maxLength?: number } =
    STRING_FORMATS[format].schema;
  const length = [...text].length;
  return (
    (schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(text)) &&
    length >= (schema.minLength ?? 0) &&
    length <= (schema.maxLength ?? Number.POSITIVE_INFINITY)
  );
};

describe('base64', () => {
  it('accepts exactly what Node encodes, for every byte string', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        expect(base64Problem(Buffer.from(bytes).toString('base64'))).toBeUndefined();
      }),
    );
  });

  it('accepts a text only if decoding and re-encoding gives it back (canonical form)', () => {
    const alphabet = fc.constantFrom(...'ABQRgwxyz019+/=- \n'.split(''));
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 12 }), (text) => {
        const canonical = Buffer.from(text, 'base64').toString('base64') === text;
        expect(base64Problem(text) === undefined).toBe(canonical);
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['QQ=', 'multiple of 4'],
    ['QR==', 'non-canonical'],
    ['QUI=', undefined],
    ['QUJ=', 'non-canonical'],
    ['QUJD\nRA==', 'multiple of 4'],
    ['QU\nJDRA=', 'invalid base64 character "\\n" at offset 2'],
    ['QU=D', 'invalid base64 character "="'],
    ['====', 'invalid base64 character "="'],
    ['QUJD-A==', 'invalid base64 character "-"'],
    ['QUJDé===', 'invalid base64 character "é"'],
    ['', undefined],
  ])('%j → %s', (text, reason) => {
    if (reason === undefined) expect(base64Problem(text)).toBeUndefined();
    else expect(base64Problem(text)).toContain(reason);
  });

  // Speed is a benchmark's business; this checks the verdict on large content.
  it('checks multi-megabyte content, locating a problem near its end', () => {
    const text = Buffer.alloc(12_000_000, 0xa7).toString('base64');
    expect(base64Problem(text)).toBeUndefined();
    expect(base64Problem(`${text.slice(0, -4)}AA*=`)).toContain('offset 15999998');
  });
});

describe('media-type', () => {
  it.each(['image/png', 'IMAGE/PNG', 'image/svg+xml', 'application/vnd.ms-excel', 'a/b'])(
    'accepts %s',
    (text) => expect(valid('media-type', text)).toBe(true),
  );

  it.each([
    'image',
    'image/',
    '/png',
    'image/png; charset=utf-8',
    'image /png',
    'image/-png',
    'ima(ge/png',
    `image/${'a'.repeat(128)}`,
  ])('rejects %j', (text) => expect(valid('media-type', text)).toBe(false));
});

describe('email', () => {
  it.each(['<EMAIL>', 'ada@example.com', 'x', `${'a'.repeat(250)}@b.c`, `${'😀'.repeat(254)}`])(
    'accepts %j (lenient: no syntax check)',
    (text) => expect(valid('email', text)).toBe(true),
  );

  it.each(['', 'ada @example.com', 'ada@example.com\n', '\u00a0', `${'a'.repeat(251)}@b.c`])(
    'rejects %j',
    (text) => expect(valid('email', text)).toBe(false),
  );
});

describe('each format and its JSON Schema keywords agree', () => {
  const text = fc.oneof(
    fc.string(),
    fc.string({ unit: fc.constantFrom(...'Aa0+/=@. \t/-^!é'.split('')) }),
    fc.uint8Array({ maxLength: 30 }).map((b) => Buffer.from(b).toString('base64')),
    fc.stringMatching(/^[a-z0-9][a-z0-9.+-]{0,8}\/[a-z0-9][a-z0-9.+-]{0,8}$/),
  );

  it.each(['base64', 'media-type', 'email'] as const)('%s', (format) => {
    fc.assert(
      fc.property(text, (s) => {
        expect(schemaAccepts(format, s)).toBe(valid(format, s));
      }),
      { numRuns: 2000 },
    );
  });

  it('saved-time: the schema accepts everything the decoder accepts', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{4}-[01]\d-[0-3]\d [0-2]\d:[0-5]\d:[0-5]\d$/), (s) => {
        if (valid('saved-time', s)) expect(schemaAccepts('saved-time', s)).toBe(true);
      }),
    );
    // The one gap, documented: days per month are beyond the pattern.
    expect(schemaAccepts('saved-time', '2023-02-30 00:00:00')).toBe(true);
    expect(valid('saved-time', '2023-02-30 00:00:00')).toBe(false);
  });
});
