import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeSignRequest } from '../../../src/core/sign-request/decode-sign-request.js';
import { encodeSignRequest } from '../../../src/core/sign-request/encode-sign-request.js';
import { signRequestArb } from './sign-request-arbitraries.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const toWire = (value: unknown): Json => JSON.parse(JSON.stringify(value));

/** Every member path of a wire value with the value found there, in the decoder's notation. */
const memberPaths = (value: Json, path = ''): [string, Json][] => {
  if (Array.isArray(value)) {
    return value.flatMap((v, i) => [[`${path}[${i}]`, v], ...memberPaths(v, `${path}[${i}]`)]);
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => {
      const at = path === '' ? k : `${path}.${k}`;
      return [[at, v] as [string, Json], ...memberPaths(v, at)];
    });
  }
  return [];
};

/** A copy of `root` with the value at `path` replaced (or removed when `replacement` is undefined). */
const replaceAt = (root: Json, path: string, replacement: unknown): Json => {
  const copy = toWire(root);
  const steps = path.match(/[^.[\]]+/g) ?? [];
  let parent: Json = copy;
  for (const step of steps.slice(0, -1)) parent = (parent as Record<string, Json>)[step] as Json;
  const last = steps.at(-1) ?? '';
  if (replacement === undefined) delete (parent as Record<string, Json>)[last];
  else (parent as Record<string, unknown>)[last] = replacement;
  return copy;
};

/** A value of another JSON type than `value`, so wrong for any member holding `value`. */
const retyped = (value: Json): Json => {
  if (typeof value === 'string') return 42;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 0;
  if (Array.isArray(value)) return {};
  return 'not an object';
};

describe('round trip', () => {
  it('decode(encode(x)) equals x for every valid sign request', () => {
    fc.assert(
      fc.property(signRequestArb, (sr) => {
        expect(decodeSignRequest(encodeSignRequest(sr))._unsafeUnwrap()).toStrictEqual(sr);
      }),
      { numRuns: 500 },
    );
  });

  it('survives JSON text in between', () => {
    fc.assert(
      fc.property(signRequestArb, (sr) => {
        const wire = JSON.parse(JSON.stringify(encodeSignRequest(sr)));
        expect(decodeSignRequest(wire)._unsafeUnwrap()).toStrictEqual(sr);
      }),
      { numRuns: 300 },
    );
  });

  it('re-encoding an accepted input gives its canonical form, which is a fixed point', () => {
    fc.assert(
      fc.property(signRequestArb, fc.constantFrom('DRAFT', 'Sent', 'COMPLETED'), (sr, status) => {
        const canonical = toWire(encodeSignRequest(sr)) as Record<string, Json>;
        const received = { junk: [1], ...canonical, status };
        const once = encodeSignRequest(decodeSignRequest(received)._unsafeUnwrap());
        expect(once).toStrictEqual({ ...canonical, status: status.toLowerCase() });
        expect(encodeSignRequest(decodeSignRequest(once)._unsafeUnwrap())).toStrictEqual(once);
      }),
    );
  });
});

describe('totality', () => {
  const neverThrows = (input: unknown) => {
    const result = decodeSignRequest(input);
    if (result.isErr()) {
      expect(result.error.length).toBeGreaterThan(0);
      for (const e of result.error) expect(typeof e.path).toBe('string');
    }
  };

  it('returns a result for any JSON value', () => {
    fc.assert(fc.property(fc.jsonValue(), neverThrows), { numRuns: 1000 });
  });

  it('returns a result for any JavaScript value', () => {
    const anything = fc.anything({
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
    fc.assert(fc.property(anything, neverThrows), { numRuns: 300 });
  });

  it('returns a result when any member of a valid value is replaced by anything', () => {
    fc.assert(
      fc.property(signRequestArb, fc.nat(), fc.anything(), (sr, pick, value) => {
        const wire = toWire(encodeSignRequest(sr));
        const paths = memberPaths(wire);
        const [path] = paths[pick % paths.length] ?? [''];
        neverThrows(replaceAt(wire, path, value));
      }),
    );
  });

  it('returns a result for hostile objects: throwing getters and proxies', () => {
    const getter = Object.defineProperty({}, 'id', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    const proxy = new Proxy(
      {},
      {
        has: () => {
          throw new Error('boom');
        },
        getOwnPropertyDescriptor: () => {
          throw new Error('boom');
        },
      },
    );
    for (const input of [getter, proxy]) {
      expect(decodeSignRequest(input)._unsafeUnwrapErr().at(-1)).toMatchObject({ path: '' });
    }
  });

  it('does not recurse into deeply nested input', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const input = { participants: [deep], extra: deep };
    const errors = decodeSignRequest(input)._unsafeUnwrapErr();
    expect(errors.map((e) => e.path)).toContain('participants[0]');
  });

  it('handles huge strings in every string member', () => {
    const huge = 'A'.repeat(10_000_000);
    const input = {
      id: 1,
      name: huge,
      status: huge,
      formType: huge,
      savedTime: huge,
      participants: [{ email: huge, status: huge, fieldData: [{ imageMimetype: huge }] }],
    };
    const errors = decodeSignRequest(input)._unsafeUnwrapErr();
    expect(errors.map((e) => e.path)).toEqual([
      'status',
      'formType',
      'savedTime',
      'participants[0].email',
      'participants[0].fieldData[0].imageMimetype',
    ]);
    expect(Math.max(...errors.map((e) => e.message.length))).toBeLessThan(200);
  });
});

describe('mutations of a valid value', () => {
  it('retyping any member is rejected with that exact path', () => {
    fc.assert(
      fc.property(signRequestArb, fc.nat(), (sr, pick) => {
        const wire = toWire(encodeSignRequest(sr));
        const paths = memberPaths(wire);
        const [path, value] = paths[pick % paths.length] ?? ['', null];
        const errors = decodeSignRequest(replaceAt(wire, path, retyped(value)))._unsafeUnwrapErr();
        expect(errors).toContainEqual(expect.objectContaining({ kind: 'wrong-type', path }));
      }),
      { numRuns: 500 },
    );
  });

  it('removing a required member is rejected with its path', () => {
    const required = ['id', 'name', 'status', 'formType', 'savedTime'];
    fc.assert(
      fc.property(signRequestArb, fc.constantFrom(...required), (sr, member) => {
        const wire = replaceAt(toWire(encodeSignRequest(sr)), member, undefined);
        expect(decodeSignRequest(wire)._unsafeUnwrapErr()).toEqual([
          expect.objectContaining({ kind: 'missing-member', path: member }),
        ]);
      }),
    );
  });

  it('removing an optional member keeps the value valid', () => {
    fc.assert(
      fc.property(signRequestArb, fc.nat(), (sr, pick) => {
        const wire = toWire(encodeSignRequest(sr));
        const optional = memberPaths(wire).filter(
          ([p]) => /\.[a-zA-Z]+$/.test(p) || /^(participants|fields)$/.test(p),
        );
        const [path] = optional[pick % Math.max(optional.length, 1)] ?? [];
        fc.pre(path !== undefined);
        expect(decodeSignRequest(replaceAt(wire, path ?? '', undefined)).isOk()).toBe(true);
      }),
    );
  });
});

describe('prototype pollution', () => {
  const polluting = [
    '{"__proto__": {"polluted": 1}, "id": 1}',
    '{"constructor": {"prototype": {"polluted": 1}}}',
    '{"participants": [{"__proto__": {"polluted": 1}, "role": {"__proto__": {"polluted": 1}}}]}',
    '{"fields": [{"constructor": {"prototype": {"polluted": 1}}, "__proto__": null}]}',
  ];

  it.each(polluting)('never reaches Object.prototype: %s', (text) => {
    decodeSignRequest(JSON.parse(text));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('never gives the output an input-controlled prototype or member', () => {
    const input = JSON.parse(
      '{"id":1,"name":"n","status":"sent","formType":"Form","savedTime":"2024-01-01 00:00:00",' +
        '"__proto__":{"isAdmin":true},"participants":[{"__proto__":{"isAdmin":true}}]}',
    );
    const sr = decodeSignRequest(input)._unsafeUnwrap();
    expect(Object.getPrototypeOf(sr)).toBe(Object.prototype);
    expect((sr as unknown as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(Object.getPrototypeOf(sr.participants?.[0])).toBe(Object.prototype);
    expect(Object.hasOwn(sr, '__proto__')).toBe(false);
  });

  it('holds for arbitrary objects with dangerous keys', () => {
    const key = fc.constantFrom('__proto__', 'constructor', 'prototype', 'id', 'role', 'polluted');
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue(),
        fc.dictionary(key, tie('node'), { maxKeys: 4 }),
        fc.array(tie('node'), { maxLength: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(tree, (input) => {
        decodeSignRequest(JSON.parse(JSON.stringify(input)));
        decodeSignRequest(input);
        expect(Object.prototype).not.toHaveProperty('polluted');
        expect(Object.prototype).not.toHaveProperty('role');
      }),
    );
  });
});
