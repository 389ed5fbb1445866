import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeSignRequest } from '../../../src/core/sign-request/decode-sign-request.js';
import { encodeSignRequest } from '../../../src/core/sign-request/encode-sign-request.js';
import {
  SIGN_REQUEST_SCHEMA_ID,
  signRequestJsonSchema,
} from '../../../src/core/sign-request/sign-request-schema.js';
import { signRequestArb } from './sign-request-arbitraries.js';

type Schema = Record<string, unknown>;

const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  '$defs',
  'title',
  'description',
  'examples',
  'contentEncoding',
]);

/**
 * A minimal draft 2020-12 validator for exactly the keywords the generator
 * emits; an unexpected keyword fails the test rather than being ignored.
 */
const validate = (root: Schema, schema: Schema, value: unknown): boolean => {
  const jsonType = (v: unknown) =>
    v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;
  return Object.entries(schema).every(([keyword, arg]) => {
    if (ANNOTATIONS.has(keyword)) return true;
    const a = arg as never;
    switch (keyword) {
      case '$ref': {
        const name = (arg as string).replace('#/$defs/', '');
        return validate(root, (root.$defs as Record<string, Schema>)[name] as Schema, value);
      }
      case 'type':
        return jsonType(value) === arg || (arg === 'number' && jsonType(value) === 'integer');
      case 'required':
        return (
          typeof value !== 'object' ||
          (a as string[]).every((k) => Object.hasOwn(value as object, k))
        );
      case 'properties':
        return (
          typeof value !== 'object' ||
          value === null ||
          Object.entries(a as Record<string, Schema>).every(
            ([k, s]) => !Object.hasOwn(value, k) || validate(root, s, (value as Schema)[k]),
          )
        );
      case 'items':
        return !Array.isArray(value) || value.every((v) => validate(root, a, v));
      case 'enum':
        return (a as unknown[]).includes(value);
      case 'pattern':
        return typeof value !== 'string' || new RegExp(a, 'u').test(value);
      case 'minLength':
        return typeof value !== 'string' || [...value].length >= a;
      case 'maxLength':
        return typeof value !== 'string' || [...value].length <= a;
      case 'minimum':
        return typeof value !== 'number' || value >= a;
      case 'maximum':
        return typeof value !== 'number' || value <= a;
      default:
        throw new Error(`validator does not know keyword ${keyword}`);
    }
  });
};

const schema = signRequestJsonSchema() as Schema;
const valid = (value: unknown) => validate(schema, schema, value);
const base = {
  id: 1,
  name: 'n',
  status: 'Sent',
  formType: 'Form',
  savedTime: '2024-01-01 00:00:00',
};

describe('signRequestJsonSchema', () => {
  it('is a draft 2020-12 schema with the spec members and required list', () => {
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: SIGN_REQUEST_SCHEMA_ID,
      type: 'object',
      required: ['id', 'name', 'status', 'formType', 'savedTime'],
    });
    expect(Object.keys(schema.properties as Schema)).toEqual([
      'id',
      'name',
      'status',
      'formType',
      'savedTime',
      'participants',
      'fields',
    ]);
    expect(Object.keys(schema.$defs as Schema).sort()).toEqual([
      'Field',
      'FieldData',
      'Participant',
      'Role',
    ]);
  });

  it('returns a fresh object each time', () => {
    const a = signRequestJsonSchema() as Schema;
    (a.properties as Schema).id = {};
    expect(signRequestJsonSchema()).toEqual(schema);
    expect(schema).toEqual(JSON.parse(JSON.stringify(schema)));
  });

  it('accepts every encoded sign request', () => {
    fc.assert(
      fc.property(signRequestArb, (sr) => {
        expect(valid(encodeSignRequest(sr))).toBe(true);
      }),
    );
  });

  it('agrees with the decoder on member-level rules', () => {
    const cases: Schema[] = [
      base,
      { ...base, status: 'cOmPlEtEd' },
      { ...base, status: 'done' },
      { ...base, formType: 'form' },
      { ...base, id: 1.5 },
      { ...base, id: 2 ** 53 },
      { ...base, savedTime: '2024-01-01T00:00:00' },
      { ...base, participants: [{ role: { sequence: -1 } }] },
      { ...base, participants: [{ role: { sequence: 0 } }] },
      { ...base, participants: [{ status: 'Whatever', email: '<EMAIL>' }] },
      { ...base, participants: [{ email: 'a b' }] },
      { ...base, participants: [{ fieldData: [{ imageContent: 'QR==' }] }] },
      { ...base, participants: [{ fieldData: [{ imageMimetype: 'image/png;q=1' }] }] },
      { ...base, fields: [{ required: 'yes' }] },
      { ...base, fields: [{ unknown: 'members are ignored' }], extra: true },
      { ...base, name: undefined },
    ].map((c) => JSON.parse(JSON.stringify(c)));
    for (const c of cases) expect([c, valid(c)]).toEqual([c, decodeSignRequest(c).isOk()]);
  });

  it('documents the rules only the decoder can check', () => {
    const crossReference = { ...base, participants: [], fields: [{ roleId: 1 }] };
    const duplicate = { ...base, fields: [{ id: 1 }, { id: 1 }] };
    const calendar = { ...base, savedTime: '2023-02-29 00:00:00' };
    for (const c of [crossReference, duplicate, calendar]) {
      expect(valid(c)).toBe(true);
      expect(decodeSignRequest(c).isErr()).toBe(true);
    }
    expect(schema.$comment).toMatch(/calendar.*unique.*roleId.*fieldId/s);
  });
});
