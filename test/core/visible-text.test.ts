/** visibleText and writeJson: no control character or bidi override from data reaches a terminal. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeJson, writeLines } from '../../src/cli/cli-io.js';
import { visibleText } from '../../src/core/visible-text.js';
import { count } from '../reliability/fixtures/reliability-helpers.js';
import { FORBIDDEN_CHARS, forbiddenIn, hostileTextArb } from '../support/terminal-safety.js';

const RUNS = count(300, 5000);

/** Collects what is written. */
const capture = () => {
  let text = '';
  return {
    out: {
      write: (chunk: string) => {
        text += chunk;
      },
    },
    text: () => text,
  };
};

/** Undoes the escapes of forbidden code points (and only those). */
const unescapeForbidden = (text: string): string =>
  text.replace(/\\u([0-9a-f]{4})/g, (sequence, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return FORBIDDEN_CHARS.includes(char) ? char : sequence;
  });

describe('visibleText', () => {
  it.each([
    ['\u001b[2J', '\\u001b[2J'],
    ['\u009b31m', '\\u009b31m'],
    ['\u202efdp.exe', '\\u202efdp.exe'],
    ['a\u2066b\u2069', 'a\\u2066b\\u2069'],
    ['del\u007f', 'del\\u007f'],
    ['nul\u0000 bell\u0007', 'nul\\u0000 bell\\u0007'],
    ['two\nlines\r\n', 'two\\u000alines\\u000d\\u000a'],
    ['tab\there', 'tab\\u0009here'],
  ])('escapes %j as %j', (text, escaped) => {
    expect(visibleText(text)).toBe(escaped);
  });

  it('leaves printable text alone, non-ASCII, astral and a backslash included', () => {
    const text = 'Zoë Ñandú 日本 😀 \u00a0\u00ad\u200e C:\\path \\u001b';
    expect(visibleText(text)).toBe(text);
  });

  it('escapes every forbidden code point, once, and nothing else', () => {
    fc.assert(
      fc.property(hostileTextArb, (text) => {
        const escaped = visibleText(text);
        expect(forbiddenIn(escaped.replaceAll('\n', '\u0000'))).toEqual([]);
        expect(visibleText(escaped)).toBe(escaped);
        if (!text.includes('\\')) expect(unescapeForbidden(escaped)).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });

  it('writeLines escapes each line, a newline inside a line included', () => {
    fc.assert(
      fc.property(fc.array(hostileTextArb, { minLength: 1, maxLength: 5 }), (lines) => {
        const { out, text } = capture();
        writeLines(out, lines);
        expect(forbiddenIn(text())).toEqual([]);
        expect(text().split('\n')).toHaveLength(lines.length + 1);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('writeJson', () => {
  const hostileJson = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      hostileTextArb,
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(hostileTextArb, tie('value'), { maxKeys: 4 }),
    ),
  })).value;

  it.each([undefined, 2])(
    'prints JSON (indent %s) that parses to the same value, with no forbidden code point',
    (indent) => {
      fc.assert(
        fc.property(hostileJson, (value) => {
          const { out, text } = capture();
          writeJson(out, value, indent);
          expect(forbiddenIn(text())).toEqual([]);
          expect(JSON.parse(text())).toEqual(value);
        }),
        { numRuns: RUNS },
      );
    },
  );

  it('writes U+202E, U+0085 and DEL as JSON escapes', () => {
    const { out, text } = capture();
    writeJson(out, { name: '\u202eA\u0085B\u007f' });
    expect(text()).toBe('{"name":"\\u202eA\\u0085B\\u007f"}\n');
  });
});
