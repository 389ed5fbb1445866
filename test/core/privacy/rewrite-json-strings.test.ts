import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type JsonPath,
  jsonPathKey,
  rewriteJsonStrings,
} from '../../../src/core/privacy/rewrite-json-strings.js';

/** Every path of a string value in a parsed JSON value. */
const stringPaths = (value: unknown, at: JsonPath = []): JsonPath[] => {
  if (typeof value === 'string') return [at];
  if (Array.isArray(value)) return value.flatMap((element, i) => stringPaths(element, [...at, i]));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, member]) => stringPaths(member, [...at, key]));
  }
  return [];
};

const setAt = (value: unknown, path: JsonPath, text: string): unknown => {
  if (path.length === 0) return text;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((e, i) => (i === head ? setAt(e, rest, text) : e));
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value as object)) {
    Object.defineProperty(copy, key, {
      value: key === head ? setAt(member, rest, text) : member,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
};

describe('rewriteJsonStrings', () => {
  it('replaces the chosen string and keeps every other byte, spacing and escapes included', () => {
    const text = '{ "a" : "\\u0041nn", "b":[1.50, "x\\"y", {"c":"Ann"}],"d":null }';
    const out = rewriteJsonStrings(text, new Map([[jsonPathKey(['b', 2, 'c']), 'P']]));
    expect(out).toEqual({
      text: '{ "a" : "\\u0041nn", "b":[1.50, "x\\"y", {"c":"P"}],"d":null }',
      replaced: 1,
    });
    const first = rewriteJsonStrings(text, new Map([[jsonPathKey(['a']), 'P']]));
    expect(first.text).toBe('{ "a" : "P", "b":[1.50, "x\\"y", {"c":"Ann"}],"d":null }');
  });

  it('replaces every occurrence of a repeated member, so no parser keeps the old value', () => {
    const out = rewriteJsonStrings('{"n":"A","n":"B"}', new Map([[jsonPathKey(['n']), 'P']]));
    expect(out).toEqual({ text: '{"n":"P","n":"P"}', replaced: 2 });
  });

  it('never replaces a member name, nor a value that is not a string', () => {
    const map = new Map([
      [jsonPathKey(['n']), 'P'],
      [jsonPathKey(['k']), 'P'],
    ]);
    expect(rewriteJsonStrings('{"n":7,"k":{"n":"x"}}', map)).toEqual({
      text: '{"n":7,"k":{"n":"x"}}',
      replaced: 0,
    });
  });

  it('returns text that is not JSON unchanged', () => {
    const map = new Map([[jsonPathKey(['n']), 'P']]);
    for (const text of ['{"n":"A"', '{"n":"A"} x', '', '[[[', '{"n" "A"}']) {
      expect(rewriteJsonStrings(text, map)).toEqual({ text, replaced: 0 });
    }
  });

  it('survives deep nesting without recursion', () => {
    const depth = 100_000;
    const text = `${'['.repeat(depth)}"a"${']'.repeat(depth)}`;
    const out = rewriteJsonStrings(text, new Map([[jsonPathKey(new Array(depth).fill(0)), 'P']]));
    expect(out.replaced).toBe(1);
    expect(out.text.length).toBe(text.length);
  });

  it('law: parsing the result equals the parsed input with that one string replaced', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.nat(),
        fc.string({ unit: 'binary' }),
        fc.integer({ min: 0, max: 2 }),
        (generated, pick, replacement, indent) => {
          const text = JSON.stringify(generated, null, indent);
          const value: unknown = JSON.parse(text);
          const paths = stringPaths(value);
          if (paths.length === 0) {
            expect(rewriteJsonStrings(text, new Map([['[]', 'x']])).replaced).toBe(0);
            return;
          }
          const path = paths[pick % paths.length] as JsonPath;
          const out = rewriteJsonStrings(text, new Map([[jsonPathKey(path), replacement]]));
          expect(out.replaced).toBe(1);
          expect(JSON.parse(out.text)).toEqual(setAt(value, path, replacement));
          // Nothing outside the token moved: the output is the input with one token swapped.
          const token = JSON.stringify(path.reduce<unknown>((v, k) => (v as never)[k], value));
          const swapped = (at: number): string =>
            `${text.slice(0, at)}${JSON.stringify(replacement)}${text.slice(at + token.length)}`;
          const starts: number[] = [];
          for (let at = text.indexOf(token); at >= 0; at = text.indexOf(token, at + 1)) {
            starts.push(at);
          }
          expect(starts.some((at) => swapped(at) === out.text)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
