import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eraseInJson } from '../../../src/core/privacy/erase-in-json.js';
import { eraseInText } from '../../../src/core/privacy/erase-in-text.js';

const P = 'forgotten-0123456789abcdef';

describe('eraseInText', () => {
  it('replaces every occurrence of a typed name, even inside a word', () => {
    expect(eraseInText('Al met Alice; Al.', { typed: ['Al'], found: [] }, P)).toEqual({
      text: `${P} met ${P}ice; ${P}.`,
      count: 3,
    });
  });

  it('replaces a found name only where it stands alone', () => {
    expect(eraseInText('Al met Alice; Al.', { typed: [], found: ['Al'] }, P)).toEqual({
      text: `${P} met Alice; ${P}.`,
      count: 2,
    });
  });

  it('finds the escaped form JSON writes for controls, NUL and lone surrogates', () => {
    for (const name of ['\u001b[2JEve', 'N\u0000L', 'half\ud800', '"quoted"']) {
      const line = `{"partcipantName":${JSON.stringify(name)},"x":1`;
      const out = eraseInText(line, { typed: [name], found: [] }, P);
      expect(out.text).toBe(`{"partcipantName":"${P}","x":1`);
      const upper = line.replace(/\\u([0-9a-f]{4})/g, (_, h: string) => `\\u${h.toUpperCase()}`);
      expect(eraseInText(upper, { typed: [name], found: [] }, P).count).toBe(1);
    }
  });

  it('replaces a longer name before a shorter one inside it', () => {
    const out = eraseInText('Ann Smith and Ann', { typed: ['Ann', 'Ann Smith'], found: [] }, P);
    expect(out.text).toBe(`${P} and ${P}`);
  });

  it('finds the NFC and NFD forms of a name', () => {
    const nfd = 'Zoe\u0301';
    expect(eraseInText(`x ${nfd} y`, { typed: ['Zo\u00e9'], found: [] }, P).text).toBe(`x ${P} y`);
  });

  it('law: afterwards no occurrence of a typed name is left, and the pseudonym is never touched', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.array(fc.string()), (name, pieces) => {
        const text = pieces.join(name);
        const out = eraseInText(text, { typed: [name], found: [] }, P);
        if (!P.includes(name)) expect(out.text.includes(name)).toBe(false);
        expect(eraseInText(out.text, { typed: [], found: [] }, P).text).toBe(out.text);
      }),
    );
  });
});

describe('eraseInJson', () => {
  it('replaces names in strings and member names, keeps the value otherwise, never mutates', () => {
    const value = { to: 'Ann Smith', 'Ann Smith': [1, 'Dear Ann Smith,'], n: 2 };
    const frozen = structuredClone(value);
    const out = eraseInJson(value, { typed: [], found: ['Ann Smith'] }, P);
    expect(out.value).toEqual({ to: P, [P]: [1, `Dear ${P},`], n: 2 });
    expect(out.count).toBe(3);
    expect(value).toEqual(frozen);
    const same = { a: ['b'] };
    expect(eraseInJson(same, { typed: ['zz'], found: [] }, P).value).toBe(same);
  });

  it('keeps a member named __proto__ a member', () => {
    const value = JSON.parse('{"__proto__":{"x":"Ann"}}');
    const out = eraseInJson(value, { typed: ['Ann'], found: [] }, P).value as object;
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(JSON.stringify(out)).toBe(`{"__proto__":{"x":"${P}"}}`);
  });
});
