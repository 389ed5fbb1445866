/**
 * What the CLI must never print from data (issue 21 #6), written out here
 * independently of src/core/visible-text.ts so the tests check the rule, not
 * the implementation's copy of it; and strings made of exactly those.
 */
import fc from 'fast-check';

/** The forbidden ranges, inclusive: C0, DEL + C1, line/paragraph separators + bidi embeddings and overrides, bidi isolates. */
export const FORBIDDEN_RANGES: readonly (readonly [number, number])[] = [
  [0x00, 0x1f],
  [0x7f, 0x9f],
  [0x2028, 0x202e],
  [0x2066, 0x2069],
];

/** Every forbidden code point, as a one-character string. */
export const FORBIDDEN_CHARS: readonly string[] = FORBIDDEN_RANGES.flatMap(([from, to]) =>
  Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i)),
);

const isForbidden = (code: number): boolean =>
  FORBIDDEN_RANGES.some(([from, to]) => code >= from && code <= to);

/**
 * The forbidden code points in `output`, as `U+XXXX at offset N`, ignoring
 * the newlines that end its lines (the only control character the CLI
 * itself prints outside progress, which is drawn on terminals only).
 */
export const forbiddenIn = (output: string): string[] => {
  const found: string[] = [];
  for (let i = 0; i < output.length; i += 1) {
    const code = output.charCodeAt(i);
    if (code === 0x0a) continue;
    if (isForbidden(code)) found.push(`U+${code.toString(16).padStart(4, '0')} at offset ${i}`);
  }
  return found;
};

/** One forbidden character. */
export const forbiddenCharArb: fc.Arbitrary<string> = fc.constantFrom(...FORBIDDEN_CHARS);

/** A string that mixes forbidden characters with ordinary and non-BMP text, ESC sequences and backslashes. */
export const hostileTextArb: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      forbiddenCharArb,
      fc.constantFrom(
        '\u001b[2J',
        '\u001b]0;pwned\u0007',
        '\u009b31m',
        '\u202efdp.exe',
        '\\',
        'é',
        '😀',
      ),
      fc.string({ maxLength: 4 }),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));
