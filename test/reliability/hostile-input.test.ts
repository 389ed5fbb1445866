/**
 * Hostile input: the decoders (`decodeEvent`, `decodeEventJson`,
 * `decodeSignRequest`), the live projector and snapshot restore are fuzzed with
 * arbitrary values, arbitrary JSON text, mutations of valid input, huge strings,
 * deep nesting, awkward numbers and prototype-pollution keys. Properties: they
 * never throw, mutations are rejected naming the member, `Object.prototype` is
 * never polluted (checked after every case), and what is accepted is exactly
 * what was given. Counts: see `count(...)`; figures are printed at the end.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEvent } from '../../src/core/builders/plain-builders.js';
import type { DecodeError, DecodeErrorKind } from '../../src/core/decode-error.js';
import {
  DEFAULT_MAX_EVENT_LENGTH,
  decodeEvent,
  decodeEventJson,
} from '../../src/core/events/decode-event.js';
import {
  EVENT_MEMBERS,
  isEventType,
  MEMBER_KINDS,
  type MemberName,
  WIRE_PARTICIPANT_NAME,
} from '../../src/core/events/event-members.js';
import type { SignEvent } from '../../src/core/events/sign-event.js';
import { MAX_DECODE_ERRORS } from '../../src/core/sign-request/decode-shape.js';
import { decodeSignRequest } from '../../src/core/sign-request/decode-sign-request.js';
import { encodeSignRequest } from '../../src/core/sign-request/encode-sign-request.js';
import { createProjector } from '../../src/engine/projector.js';
import { restoreProjector, takeSnapshot } from '../../src/engine/snapshot.js';
import { signRequestArb } from '../core/sign-request/sign-request-arbitraries.js';
import { wireCaseArb, wireEventArb, wireMutationArb } from '../support/arbitraries.js';
import {
  assertNotPolluted,
  count,
  Figures,
  pollution,
  SENTINEL,
} from './fixtures/reliability-helpers.js';

const figures = new Figures('hostile-input');
afterAll(() => {
  expect(pollution()).toBeUndefined();
  figures.print();
});

/** Cases per property: 500 by default, 20,000 under stress. */
const RUNS = count(500, 20_000);

const KINDS: ReadonlySet<DecodeErrorKind> = new Set<DecodeErrorKind>([
  'invalid-json',
  'not-an-object',
  'unknown-type',
  'missing-member',
  'wrong-type',
  'invalid-value',
  'member-not-allowed',
  'unknown-member',
  'conflicting-spelling',
  'unknown-reference',
  'too-large',
]);

const DANGEROUS_KEYS = ['__proto__', 'constructor', 'prototype'] as const;
const MEMBER_NAMES = Object.keys(MEMBER_KINDS) as MemberName[];

/** Keys that matter to the decoders, plus arbitrary ones. */
const hostileKeyArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string() },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      ...DANGEROUS_KEYS,
      'toString',
      'valueOf',
      'hasOwnProperty',
      'type',
      ...MEMBER_NAMES,
      WIRE_PARTICIPANT_NAME,
      SENTINEL,
    ),
  },
);

/** Any JavaScript value, exotic ones included (null prototypes, BigInts, Maps, sparse arrays…). */
const anythingArb = fc.anything({
  key: hostileKeyArb,
  maxDepth: 4,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
});

/** Builds JSON object text from entries, so that `__proto__` becomes an own key of the parsed object. */
const objectText = (entries: readonly (readonly [string, string])[]): string =>
  `{${entries.map(([key, text]) => `${JSON.stringify(key)}:${text}`).join(',')}}`;

/** Values that try to pollute `Object.prototype` when merged naively. */
const POLLUTERS = [
  `{${JSON.stringify(SENTINEL)}:"yes"}`,
  `{"prototype":{${JSON.stringify(SENTINEL)}:"yes"}}`,
  `{"__proto__":{${JSON.stringify(SENTINEL)}:"yes"}}`,
];
const polluterArb = fc.constantFrom(...POLLUTERS);

const isDecodeError = (error: DecodeError): boolean =>
  KINDS.has(error.kind) && typeof error.path === 'string' && typeof error.message === 'string';

/**
 * Checks an accepted event against the value it came from: exactly `type` and
 * the members of its type, canonical spelling, each equal to the input's
 * (ids as safe integers, -0 as 0), on a plain fresh object.
 */
const expectFaithful = (input: Record<string, unknown>, event: SignEvent): void => {
  expect(isEventType(event.type)).toBe(true);
  expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
  const members: readonly MemberName[] = EVENT_MEMBERS[event.type];
  expect(Object.keys(event).sort()).toEqual(['type', ...members].sort());
  expect(event.type).toBe(input.type);
  const out = event as unknown as Record<string, unknown>;
  for (const name of members) {
    const value = out[name];
    if (name === 'participantName') {
      const given = input[WIRE_PARTICIPANT_NAME] ?? input.participantName;
      expect(value).toBe(given);
    } else if (MEMBER_KINDS[name] === 'id') {
      expect(Number.isSafeInteger(value)).toBe(true);
      expect(Object.is(value, -0)).toBe(false);
      expect(value === input[name]).toBe(true);
    } else {
      expect(value).toBe(input[name]);
    }
  }
};

/** Checks a decodeEvent result is well formed, and faithful when accepted. */
const checkEventResult = (input: unknown, result: ReturnType<typeof decodeEvent>): void => {
  if (result.isErr()) {
    expect(isDecodeError(result.error)).toBe(true);
    return;
  }
  expectFaithful(input as Record<string, unknown>, result.value);
  // Decoding is stable: the decoded event decodes to itself.
  expect(decodeEvent(result.value)._unsafeUnwrap()).toStrictEqual(result.value);
  figures.add('events accepted from hostile input');
};

/** Nests `leaf` `depth` levels deep in arrays, without recursion. */
const nestedArray = (depth: number, leaf: unknown = 0): unknown => {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};

/** Nests `leaf` `depth` levels deep in objects `{"a": …}`, without recursion. */
const nestedObject = (depth: number, key = 'a', leaf: unknown = 0): unknown => {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = { [key]: value };
  return value;
};

const DEPTH = 10_000;
const TEN_MB = 10 * 1024 * 1024;

describe('decodeEvent / decodeEventJson: fuzzing', () => {
  it(`never throws on arbitrary values (fc.anything, exotic objects included; ${RUNS} cases)`, () => {
    const projector = createProjector();
    let position = 0;
    fc.assert(
      fc.property(anythingArb, fc.boolean(), (input, strict) => {
        checkEventResult(input, decodeEvent(input, { strict }));
        // The live projector takes the same raw values; it quarantines, never throws.
        position += 1;
        const applied = projector.apply({ position, event: input });
        expect(applied.isOk()).toBe(true);
        assertNotPolluted();
        figures.add('inputs tried');
      }),
      { numRuns: RUNS },
    );
    expect(projector.quarantine().length).toBeGreaterThan(0);
    figures.add('cases: fc.anything → decodeEvent + projector.apply', RUNS);
  });

  it(`never throws on valid events with hostile extra or replaced members (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(
        wireEventArb(),
        fc.dictionary(hostileKeyArb, anythingArb, { maxKeys: 4 }),
        fc.boolean(),
        (wire, extra, strict) => {
          const input = { ...wire, ...extra };
          checkEventResult(input, decodeEvent(input, { strict }));
          assertNotPolluted();
          figures.add('inputs tried');
        },
      ),
      { numRuns: RUNS },
    );
    figures.add('cases: valid event + hostile members', RUNS);
  });

  it(`never throws on arbitrary JSON text and arbitrary strings (${RUNS} cases each)`, () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.json(), fc.string({ unit: 'binary' }), fc.string()),
        fc.boolean(),
        (text, strict) => {
          const result = decodeEventJson(text, { strict });
          if (result.isOk()) expectFaithful(JSON.parse(text), result.value);
          else expect(isDecodeError(result.error)).toBe(true);
          assertNotPolluted();
          figures.add('inputs tried');
          figures.add('bytes fuzzed', Buffer.byteLength(text));
        },
      ),
      { numRuns: RUNS },
    );
    figures.add('cases: arbitrary text → decodeEventJson', RUNS);
  });

  it(`accepts valid events exactly as given, with __proto__/constructor/prototype keys in the JSON text (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(
        wireCaseArb(),
        fc.array(fc.tuple(fc.constantFrom(...DANGEROUS_KEYS), polluterArb), { maxLength: 3 }),
        fc.array(fc.tuple(fc.string(), fc.jsonValue()), { maxLength: 3 }),
        fc.nat(),
        ({ wire, expected }, dangerous, unknown, at) => {
          const known = new Set<string>(['type', ...MEMBER_NAMES, WIRE_PARTICIPANT_NAME]);
          const entries: [string, string][] = Object.entries(wire).map(([k, v]) => [
            k,
            JSON.stringify(v),
          ]);
          const extras: [string, string][] = [
            ...dangerous.map(([k, v]): [string, string] => [k, v]),
            ...unknown
              .filter(([k]) => !known.has(k))
              .map(([k, v]): [string, string] => [k, JSON.stringify(v)]),
          ];
          entries.splice(at % (entries.length + 1), 0, ...extras);
          const text = objectText(entries);
          const result = decodeEventJson(text);
          expect(result.isOk()).toBe(true);
          const event = result._unsafeUnwrap();
          expect(event).toStrictEqual(expected);
          expectFaithful(JSON.parse(text), event);
          for (const key of DANGEROUS_KEYS) expect(Object.hasOwn(event, key)).toBe(false);
          assertNotPolluted();
          figures.add('inputs tried');
          figures.add('bytes fuzzed', Buffer.byteLength(text));
        },
      ),
      { numRuns: RUNS },
    );
    figures.add('cases: valid event text + prototype keys, accepted exactly', RUNS);
  });

  it(`rejects every mutation of a valid event with a reason naming the member (${RUNS} cases, value and text, lenient and strict)`, () => {
    fc.assert(
      fc.property(wireMutationArb, (m) => {
        const text = JSON.stringify(m.wire);
        for (const result of [
          decodeEvent(m.wire),
          decodeEvent(m.wire, { strict: true }),
          decodeEventJson(text),
          decodeEventJson(text, { strict: true }),
        ]) {
          expect(result.isErr(), m.description).toBe(true);
          const error = result._unsafeUnwrapErr();
          expect({ kind: error.kind, path: error.path }, m.description).toEqual({
            kind: m.expectedKind,
            path: m.expectedPath,
          });
          expect(error.message, m.description).toContain(m.expectedPath);
        }
        assertNotPolluted();
        figures.add('inputs tried', 4);
        figures.add('bytes fuzzed', Buffer.byteLength(text));
      }),
      { numRuns: RUNS },
    );
    figures.add(
      'cases: mutations (removed, renamed, retyped, two spellings, type case, foreign member)',
      RUNS,
    );
  });

  it(`a member spelled twice in the JSON text: the last value is the one decoded (${RUNS} cases)`, () => {
    // JSON.parse keeps the last duplicate; the decoder never sees the first.
    fc.assert(
      fc.property(wireCaseArb(), fc.nat(), fc.boolean(), ({ wire, expected }, pick, validLast) => {
        const keys = Object.keys(wire).filter((k) => k !== 'type');
        const key = keys[pick % keys.length] as string;
        const good = JSON.stringify(wire[key]);
        const bad = typeof wire[key] === 'number' ? JSON.stringify(String(wire[key])) : '42';
        const entries: [string, string][] = Object.entries(wire).map(([k, v]) => [
          k,
          JSON.stringify(v),
        ]);
        entries.push([key, validLast ? good : bad]);
        const index = entries.findIndex(([k]) => k === key);
        entries[index] = [key, validLast ? bad : good];
        const result = decodeEventJson(objectText(entries));
        if (validLast) expect(result._unsafeUnwrap()).toStrictEqual(expected);
        else expect(result._unsafeUnwrapErr().kind).toBe('wrong-type');
        figures.add('inputs tried');
      }),
      { numRuns: RUNS },
    );
    figures.add('cases: duplicate JSON keys', RUNS);
  });
});

describe('decodeEvent / decodeEventJson: extreme values', () => {
  it('huge strings (10 MB): accepted as values, refused as text over maxLength, short messages', () => {
    const huge = 'x'.repeat(TEN_MB);
    const wire = { ...buildEvent('participant-signed'), ownerName: huge };
    const decoded = decodeEvent(wire)._unsafeUnwrap();
    expect(decoded.ownerName).toBe(huge);

    const text = JSON.stringify(wire);
    const refused = decodeEventJson(text)._unsafeUnwrapErr();
    expect(refused).toMatchObject({ kind: 'too-large', path: '' });
    expect(refused.message).toBe(
      `event text is ${text.length} characters, limit is ${DEFAULT_MAX_EVENT_LENGTH}`,
    );
    expect(decodeEventJson(text, { maxLength: text.length })._unsafeUnwrap().ownerName).toBe(huge);
    // The limit is checked before parsing: 64 M characters of garbage cost no parse.
    const garbage = 'a'.repeat(64 * 1024 * 1024);
    expect(decodeEventJson(garbage)._unsafeUnwrapErr().kind).toBe('too-large');

    for (const [member, kind] of [
      ['type', 'unknown-type'],
      ['companyId', 'wrong-type'],
      [WIRE_PARTICIPANT_NAME, 'conflicting-spelling'],
    ] as const) {
      const error = decodeEvent({
        ...buildEvent('participant-signed'),
        [member]: huge,
      })._unsafeUnwrapErr();
      expect(error.kind).toBe(kind);
      expect(error.message.length).toBeLessThan(300);
    }
    figures.add('inputs tried', 7);
    figures.add('bytes fuzzed', 2 * TEN_MB + garbage.length);
  });

  it(`deep nesting (${DEPTH} levels) as a value and as JSON text, in every position`, () => {
    const deepArray = nestedArray(DEPTH);
    const deepObject = nestedObject(DEPTH, '__proto__');
    const deepArrayText = `${'['.repeat(DEPTH)}0${']'.repeat(DEPTH)}`;
    const deepObjectText = `${'{"__proto__":'.repeat(DEPTH)}0${'}'.repeat(DEPTH)}`;
    const base = buildEvent('participant-sent') as unknown as Record<string, unknown>;
    const projector = createProjector();
    let position = 0;
    for (const deep of [deepArray, deepObject]) {
      expect(decodeEvent(deep)._unsafeUnwrapErr().kind).toBe(
        Array.isArray(deep) ? 'not-an-object' : 'missing-member',
      );
      expect(decodeEvent({ ...base, type: deep })._unsafeUnwrapErr().kind).toBe('wrong-type');
      expect(decodeEvent({ ...base, companyId: deep })._unsafeUnwrapErr().path).toBe('companyId');
      // Unknown members are never walked: accepted in lenient mode, named in strict mode.
      expect(decodeEvent({ ...base, extra: deep })._unsafeUnwrap()).toStrictEqual(base);
      expect(decodeEvent({ ...base, extra: deep }, { strict: true })._unsafeUnwrapErr().path).toBe(
        'extra',
      );
      // The live projector quarantines them, including the deep value itself (its text
      // cannot be serialized: JSON.stringify overflows the stack).
      for (const event of [deep, { ...base, type: deep }]) {
        position += 1;
        expect(projector.apply({ position, event })._unsafeUnwrap()).toBe('quarantined');
      }
    }
    expect(projector.quarantine().map((q) => q.reason.kind)).toEqual([
      'invalid-event',
      'invalid-event',
      'invalid-event',
      'invalid-event',
    ]);
    const baseText = JSON.stringify(base).slice(0, -1);
    for (const text of [deepArrayText, deepObjectText]) {
      const asWhole = decodeEventJson(text)._unsafeUnwrapErr();
      expect(['not-an-object', 'missing-member']).toContain(asWhole.kind);
      const asMember = `${baseText},"extra":${text}}`;
      expect(decodeEventJson(asMember)._unsafeUnwrap()).toStrictEqual(base);
      const asType = `${baseText},"type":${text}}`;
      expect(decodeEventJson(asType)._unsafeUnwrapErr()).toMatchObject({
        kind: 'wrong-type',
        path: 'type',
      });
      figures.add('bytes fuzzed', text.length * 3);
    }
    // A million levels: JSON.parse copes, the decoder never recurses into it.
    const million = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    expect(decodeEventJson(million, { maxLength: million.length })._unsafeUnwrapErr().kind).toBe(
      'not-an-object',
    );
    assertNotPolluted();
    figures.add('inputs tried', 27);
    figures.add('bytes fuzzed', million.length);
  });

  it('non-safe integers, -0 and 1e400 as ids', () => {
    const base = JSON.stringify(buildEvent('template-activated')).slice(0, -1);
    const cases: readonly (readonly [string, DecodeErrorKind | number])[] = [
      ['9007199254740991', Number.MAX_SAFE_INTEGER],
      ['-9007199254740991', -Number.MAX_SAFE_INTEGER],
      ['9007199254740992', 'wrong-type'],
      ['9007199254740993', 'wrong-type'], // parses as 2^53: still refused
      ['-9007199254740992', 'wrong-type'],
      ['1e21', 'wrong-type'],
      ['1e400', 'wrong-type'], // Infinity
      ['-1e400', 'wrong-type'],
      ['1.5', 'wrong-type'],
      ['1.0', 1], // the same number as 1 in JSON
      ['-0', 0],
      ['-0.0', 0],
      ['0e5', 0],
      ['"1"', 'wrong-type'],
    ];
    for (const [literal, outcome] of cases) {
      const result = decodeEventJson(`${base},"templateId":${literal}}`);
      if (typeof outcome === 'number') {
        const id = (result._unsafeUnwrap() as { readonly templateId: number }).templateId;
        expect(Object.is(id, outcome), literal).toBe(true);
      } else {
        expect(result._unsafeUnwrapErr(), literal).toMatchObject({
          kind: outcome,
          path: 'templateId',
        });
      }
    }
    // Values built in code, not parsed.
    for (const value of [2 ** 53, -(2 ** 53), Number.NaN, Infinity, 0.1, 2n, new Number(1)]) {
      const error = decodeEvent({
        ...buildEvent('template-activated'),
        ownerId: value,
      })._unsafeUnwrapErr();
      expect(error).toMatchObject({ kind: 'wrong-type', path: 'ownerId' });
    }
    expect(
      Object.is(
        decodeEvent({ ...buildEvent('template-activated'), ownerId: -0 })._unsafeUnwrap().ownerId,
        0,
      ),
    ).toBe(true);
    figures.add('inputs tried', cases.length + 8);
  });

  it('__proto__ / constructor / prototype keys: never read as members, never pollute', () => {
    const valid = buildEvent('sign-request-sent');
    const members = JSON.stringify(valid).slice(1, -1);
    // The members hidden under __proto__ must not be found: JSON.parse makes it an own key.
    const hidden = decodeEventJson(`{"__proto__":{${members}}}`)._unsafeUnwrapErr();
    expect(hidden).toMatchObject({ kind: 'missing-member', path: 'type' });
    const texts = [
      `{${members},"__proto__":{${JSON.stringify(SENTINEL)}:"yes","type":"template-deleted"}}`,
      `{${members},"constructor":{"prototype":{${JSON.stringify(SENTINEL)}:"yes"}}}`,
      `{"__proto__":null,${members}}`,
      `{${members},"prototype":{"__proto__":{${JSON.stringify(SENTINEL)}:"yes"}}}`,
    ];
    for (const text of texts) {
      const event = decodeEventJson(text)._unsafeUnwrap();
      expect(event).toStrictEqual(valid);
      expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
      expect(decodeEventJson(text, { strict: true })._unsafeUnwrapErr().kind).toBe(
        'unknown-member',
      );
      assertNotPolluted();
    }
    figures.add('inputs tried', 1 + 2 * texts.length);
  });

  it('documented limit: a non-JSON object with members on its prototype is read through it', () => {
    // JSON.parse never produces such an object; code that builds one gets its inherited members read.
    const inherited = Object.create(buildEvent('template-activated')) as object;
    expect(decodeEvent(inherited).isOk()).toBe(true);
    // The sign-request decoder reads own members only.
    const request = {
      id: 1,
      name: 'n',
      status: 'sent',
      formType: 'Form',
      savedTime: '2024-02-29 10:00:00',
    };
    expect(decodeSignRequest(Object.create(request)).isErr()).toBe(true);
    figures.add('inputs tried', 2);
  });
});

// ---------------------------------------------------------------------------
// decodeSignRequest

/** Every member or element of a JSON tree: its decoder path and its value. */
interface Site {
  readonly path: string;
  readonly value: unknown;
  readonly required: boolean;
}

const REQUIRED_TOP = new Set(['id', 'name', 'status', 'formType', 'savedTime']);

const sitesOf = (value: unknown, path = ''): Site[] => {
  const sites: Site[] = [];
  if (Array.isArray(value)) {
    value.forEach((element, i) => {
      const at = `${path}[${i}]`;
      sites.push({ path: at, value: element, required: true }, ...sitesOf(element, at));
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, member] of Object.entries(value)) {
      const at = path === '' ? key : `${path}.${key}`;
      sites.push(
        { path: at, value: member, required: path === '' && REQUIRED_TOP.has(key) },
        ...sitesOf(member, at),
      );
    }
  }
  return sites;
};

/** Serializes a JSON value, replacing the value at `target` and adding `extra` members to every object. */
const toText = (
  value: unknown,
  options: { readonly target?: string; readonly replace?: string; readonly extra?: string },
  path = '',
): string => {
  if (path !== '' && path === options.target) return options.replace ?? 'null';
  if (Array.isArray(value)) {
    return `[${value.map((e, i) => toText(e, options, `${path}[${i}]`)).join(',')}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const parts: string[] = [];
    for (const [key, member] of Object.entries(value)) {
      const at = path === '' ? key : `${path}.${key}`;
      if (at === options.target && options.replace === undefined) continue; // removed
      parts.push(`${JSON.stringify(key)}:${toText(member, options, at)}`);
    }
    if (options.extra !== undefined) parts.push(options.extra);
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value);
};

/** A JSON value of another kind than `value`'s (a numeric string for a number, …). */
const wrongKindText = (value: unknown): string => {
  if (typeof value === 'number') return JSON.stringify(String(value));
  if (typeof value === 'string') return '42';
  if (typeof value === 'boolean') return JSON.stringify(String(value));
  if (Array.isArray(value)) return '{}';
  return '[]';
};

const POLLUTING_MEMBERS = `"__proto__":{${JSON.stringify(SENTINEL)}:1},"constructor":{"prototype":{${JSON.stringify(SENTINEL)}:1}},"prototype":{"__proto__":{${JSON.stringify(SENTINEL)}:1}}`;

describe('decodeSignRequest: fuzzing', () => {
  it(`never throws on arbitrary values (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(anythingArb, (input) => {
        const result = decodeSignRequest(input);
        if (result.isErr()) {
          expect(result.error.length).toBeGreaterThan(0);
          expect(result.error.length).toBeLessThanOrEqual(MAX_DECODE_ERRORS + 1);
          expect(result.error.every(isDecodeError)).toBe(true);
        }
        assertNotPolluted();
        figures.add('inputs tried');
      }),
      { numRuns: RUNS },
    );
    figures.add('cases: fc.anything → decodeSignRequest', RUNS);
  });

  it(`accepts valid sign requests exactly, with prototype keys in every object of the text (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(signRequestArb, fc.boolean(), (signRequest, withKeys) => {
        const encoded = encodeSignRequest(signRequest);
        const text = toText(encoded, withKeys ? { extra: POLLUTING_MEMBERS } : {});
        const result = decodeSignRequest(JSON.parse(text));
        expect(result._unsafeUnwrap()).toStrictEqual(signRequest);
        const decoded = result._unsafeUnwrap();
        for (const key of DANGEROUS_KEYS) expect(Object.hasOwn(decoded, key)).toBe(false);
        assertNotPolluted();
        figures.add('inputs tried');
        figures.add('bytes fuzzed', Buffer.byteLength(text));
      }),
      { numRuns: RUNS },
    );
    figures.add('cases: valid sign request text + prototype keys, accepted exactly', RUNS);
  });

  it(`rejects a member removed or retyped anywhere in the tree, naming its path (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(signRequestArb, fc.nat(), fc.boolean(), (signRequest, pick, remove) => {
        const encoded = encodeSignRequest(signRequest);
        const sites = sitesOf(encoded);
        const site = sites[pick % sites.length] as Site;
        const removing = remove && site.required && !site.path.endsWith(']');
        const text = toText(
          encoded,
          removing
            ? { target: site.path }
            : { target: site.path, replace: wrongKindText(site.value) },
        );
        const errors = decodeSignRequest(JSON.parse(text))._unsafeUnwrapErr();
        const expected = { kind: removing ? 'missing-member' : 'wrong-type', path: site.path };
        expect(errors.map((e) => ({ kind: e.kind, path: e.path }))).toContainEqual(expected);
        assertNotPolluted();
        figures.add('inputs tried');
        figures.add('bytes fuzzed', Buffer.byteLength(text));
      }),
      { numRuns: RUNS },
    );
    figures.add('cases: sign-request mutations', RUNS);
  });

  it('huge strings, deep nesting and awkward numbers', () => {
    const base = {
      id: 1,
      name: 'n',
      status: 'sent',
      formType: 'Form',
      savedTime: '2024-02-29 23:59:59',
    };
    const huge = 'x'.repeat(TEN_MB);
    expect(decodeSignRequest({ ...base, name: huge })._unsafeUnwrap().name).toBe(huge);
    const image = 'QUJD'.repeat(TEN_MB / 4);
    const withImage = (imageContent: string) => ({
      ...base,
      participants: [{ id: 1, fieldData: [{ id: 1, imageContent }] }],
    });
    expect(decodeSignRequest(withImage(image)).isOk()).toBe(true);
    const badImage = decodeSignRequest(withImage(`${image.slice(0, -1)}!`))._unsafeUnwrapErr();
    expect(badImage[0]?.path).toBe('participants[0].fieldData[0].imageContent');
    for (const member of ['status', 'formType', 'savedTime']) {
      const errors = decodeSignRequest({ ...base, [member]: huge })._unsafeUnwrapErr();
      expect(errors[0]).toMatchObject({ kind: 'invalid-value', path: member });
      expect(errors[0]?.message.length).toBeLessThan(300);
    }
    const deep = nestedArray(DEPTH);
    expect(decodeSignRequest(deep)._unsafeUnwrapErr()[0]?.kind).toBe('not-an-object');
    for (const [member, path] of [
      ['participants', 'participants[0]'],
      ['fields', 'fields[0]'],
      ['name', 'name'],
    ] as const) {
      const errors = decodeSignRequest({ ...base, [member]: deep })._unsafeUnwrapErr();
      expect(errors[0]?.path).toBe(path);
    }
    const deepRole = decodeSignRequest({ ...base, participants: [{ role: nestedObject(DEPTH) }] });
    expect(deepRole.isOk()).toBe(true); // unknown members of `role` are ignored, not walked
    const text = JSON.stringify(base).slice(0, -1);
    for (const [literal, kind] of [
      ['9007199254740992', 'invalid-value'],
      ['1e400', 'wrong-type'],
      ['"7"', 'wrong-type'],
      ['1.5', 'wrong-type'],
    ] as const) {
      const errors = decodeSignRequest(JSON.parse(`${text},"id":${literal}}`))._unsafeUnwrapErr();
      expect(errors[0], literal).toMatchObject({ kind, path: 'id' });
    }
    expect(Object.is(decodeSignRequest({ ...base, id: -0 })._unsafeUnwrap().id, 0)).toBe(true);
    // Millions of bad elements: the error list is capped.
    const many = decodeSignRequest({ ...base, fields: new Array(1_000_000).fill('x') });
    expect(many._unsafeUnwrapErr()).toHaveLength(MAX_DECODE_ERRORS + 1);
    assertNotPolluted();
    figures.add('inputs tried', 20);
    figures.add('bytes fuzzed', 4 * TEN_MB);
  });
});

describe('restoreProjector: hostile snapshots', () => {
  it(`refuses or restores any JSON value, never throws (${RUNS} cases)`, () => {
    const projector = createProjector();
    projector.apply({ position: 1, event: buildEvent('participant-signed') });
    const valid = JSON.parse(JSON.stringify(takeSnapshot(projector))) as Record<string, unknown>;
    const memberArb = fc.constantFrom(
      'format',
      'version',
      'checkpoint',
      'templates',
      'signRequests',
      'participants',
      'audit',
      'quarantine',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.tuple(memberArb, fc.jsonValue()).map(([key, value]) => ({ ...valid, [key]: value })),
          fc
            .tuple(memberArb, polluterArb)
            .map(([key, text]) =>
              JSON.parse(`{"signRequests":[{"id":1,${JSON.stringify(key)}:${text}}]}`),
            ),
        ),
        (value) => {
          const restored = restoreProjector(value);
          if (restored.isOk()) takeSnapshot(restored.value);
          assertNotPolluted();
          figures.add('inputs tried');
        },
      ),
      { numRuns: RUNS },
    );
    // A record nested 10,000 levels deep is refused with an error, not a stack overflow.
    const deep = { ...valid, templates: [{ id: 1, extra: nestedArray(DEPTH) }] };
    expect(restoreProjector(deep)._unsafeUnwrapErr().kind).toBe('snapshot-invalid');
    figures.add('cases: hostile snapshots → restoreProjector', RUNS);
  });
});
