import { describe, expect, it } from 'vitest';
import type { DecodeError } from '../../../src/core/decode-error.js';
import { decodeSignRequest } from '../../../src/core/sign-request/decode-sign-request.js';
import { encodeSignRequest } from '../../../src/core/sign-request/encode-sign-request.js';
import {
  isKnownParticipantStatus,
  participantStatusText,
} from '../../../src/core/sign-request/participant-status.js';

/** A sign request shaped like the spec's sample (capitalised `Completed` and `Signed`). */
const sample = () => ({
  id: 1234,
  name: 'Employment contract',
  status: 'Completed',
  formType: 'Document',
  savedTime: '2024-02-29 23:59:59',
  participants: [
    {
      id: 11,
      name: 'Ada',
      email: '<EMAIL>',
      status: 'Signed',
      role: { id: 21, name: 'Employee', sequence: 0 },
      fieldData: [
        { id: 31, fieldId: 41, imageContent: 'iVBORw0KGgo=', imageMimetype: 'image/png' },
      ],
    },
  ],
  fields: [{ id: 41, roleId: 21, required: true, isMasked: false, type: 'signature' }],
});

type Json = Record<string, unknown>;
const errorsOf = (input: unknown): DecodeError[] =>
  decodeSignRequest(input).match(
    () => [],
    (errors) => errors,
  );
const pathsOf = (input: unknown) => errorsOf(input).map((e) => [e.kind, e.path]);
const withRoot = (patch: Json): Json => ({ ...sample(), ...patch });
const withParticipant = (patch: Json): Json => {
  const [p] = sample().participants;
  return withRoot({ participants: [{ ...p, ...patch }] });
};
const withField = (patch: Json): Json => {
  const [f] = sample().fields;
  return withRoot({ fields: [{ ...f, ...patch }] });
};

describe('decodeSignRequest on the sample', () => {
  it('accepts it and canonicalises status letter case', () => {
    const sr = decodeSignRequest(sample())._unsafeUnwrap();
    expect(sr.status).toBe('completed');
    expect(sr.participants?.[0]?.status).toBe('signed');
    expect(sr.formType).toBe('Document');
    expect(sr.savedTime).toBe('2024-02-29 23:59:59');
    expect(sr.participants?.[0]?.fieldData?.[0]?.imageMimetype).toBe('image/png');
  });

  it('encodes status in lower case and keeps the other members', () => {
    const wire = encodeSignRequest(decodeSignRequest(sample())._unsafeUnwrap());
    expect(wire).toEqual({
      ...sample(),
      status: 'completed',
      participants: [{ ...sample().participants[0], status: 'signed' }],
    });
  });

  it('ignores unknown members and never copies them', () => {
    const sr = decodeSignRequest({ ...sample(), extra: 1, companyId: 5 })._unsafeUnwrap();
    expect(Object.keys(sr)).toEqual([
      'id',
      'name',
      'status',
      'formType',
      'savedTime',
      'participants',
      'fields',
    ]);
  });

  it('accepts only the required members, omitting absent ones', () => {
    const { participants: _p, fields: _f, ...minimal } = sample();
    const sr = decodeSignRequest(minimal)._unsafeUnwrap();
    expect(Object.hasOwn(sr, 'participants')).toBe(false);
    expect(Object.hasOwn(sr, 'fields')).toBe(false);
  });

  it('accepts empty participant, role, field and fieldData objects', () => {
    const input = withRoot({ participants: [{ role: {}, fieldData: [{}] }], fields: [{}] });
    expect(decodeSignRequest(input)._unsafeUnwrap().participants).toEqual([
      { role: {}, fieldData: [{}] },
    ]);
  });
});

describe('whole-value errors', () => {
  it.each([null, [], 'x', 3, true, undefined])('rejects %s with path ""', (input) => {
    expect(pathsOf(input)).toEqual([['not-an-object', '']]);
  });
});

describe('required members', () => {
  it('reports every missing member at once', () => {
    expect(pathsOf({})).toEqual([
      ['missing-member', 'id'],
      ['missing-member', 'name'],
      ['missing-member', 'status'],
      ['missing-member', 'formType'],
      ['missing-member', 'savedTime'],
    ]);
  });

  it('treats an own undefined member as absent and null as a wrong type', () => {
    expect(pathsOf(withRoot({ name: undefined, fields: null }))).toEqual([
      ['missing-member', 'name'],
      ['wrong-type', 'fields'],
    ]);
  });

  it('does not take members from the prototype chain', () => {
    const input = Object.assign(Object.create(sample()), {});
    expect(pathsOf(input)).toContainEqual(['missing-member', 'id']);
  });
});

describe('ids', () => {
  it.each([
    ['"12"', '12', 'wrong-type'],
    ['a float', 1.5, 'wrong-type'],
    ['Infinity (1e400)', JSON.parse('1e400'), 'wrong-type'],
    ['NaN', Number.NaN, 'wrong-type'],
    ['an unsafe integer', 2 ** 53, 'invalid-value'],
    ['a bigint', 12n, 'wrong-type'],
  ])('rejects %s', (_label, value, kind) => {
    expect(pathsOf(withRoot({ id: value }))).toEqual([[kind, 'id']]);
  });

  it('normalises -0 to 0', () => {
    const sr = decodeSignRequest(withRoot({ id: -0 }))._unsafeUnwrap();
    expect(Object.is(sr.id, 0)).toBe(true);
  });

  it('accepts negative and maximal safe integers', () => {
    expect(decodeSignRequest(withRoot({ id: -5 })).isOk()).toBe(true);
    expect(decodeSignRequest(withRoot({ id: Number.MAX_SAFE_INTEGER })).isOk()).toBe(true);
  });
});

describe('status', () => {
  it.each(['draft', 'SENT', 'Completed', 'dEcLiNeD'])('accepts %s', (status) => {
    expect(decodeSignRequest(withRoot({ status }))._unsafeUnwrap().status).toBe(
      status.toLowerCase(),
    );
  });

  it.each(['', 'done', ' sent', 'sent ', 'ſent', 'completed\u0000'])('rejects %j', (status) => {
    const [error] = errorsOf(withRoot({ status }));
    expect(error).toMatchObject({ kind: 'invalid-value', path: 'status' });
    expect(error?.message).toContain('"draft", "sent", "completed", "declined" (any letter case)');
  });

  it('rejects a non-string', () => {
    expect(pathsOf(withRoot({ status: 1 }))).toEqual([['wrong-type', 'status']]);
  });
});

describe('formType', () => {
  it('rejects a wrong letter case and suggests the listed spelling', () => {
    const [error] = errorsOf(withRoot({ formType: 'form' }));
    expect(error).toMatchObject({ kind: 'invalid-value', path: 'formType' });
    expect(error?.message).toContain('did you mean "Form"?');
  });

  it('lists the allowed values for anything else', () => {
    const [error] = errorsOf(withRoot({ formType: 'Template' }));
    expect(error?.message).toContain('"Form", "Document"');
    expect(error?.message).not.toContain('did you mean');
  });
});

describe('savedTime', () => {
  it.each([
    '2024-02-30 10:00:00',
    '2024-02-29T10:00:00',
    '2024-1-01 10:00:00',
    '2023-02-29 00:00:00',
  ])('rejects %j', (savedTime) => {
    expect(pathsOf(withRoot({ savedTime }))).toEqual([['invalid-value', 'savedTime']]);
  });
});

describe('participants', () => {
  it('keeps an unknown status verbatim and canonicalises known ones', () => {
    const decoded = (status: string) =>
      decodeSignRequest(withParticipant({ status }))._unsafeUnwrap().participants?.[0]?.status;
    expect(decoded('Bounced')).toEqual({ other: 'Bounced' });
    expect(decoded('VIEWED')).toBe('viewed');
    expect(decoded('')).toEqual({ other: '' });
  });

  it('emits an unknown status exactly as received', () => {
    const sr = decodeSignRequest(withParticipant({ status: 'Bounced' }))._unsafeUnwrap();
    expect(encodeSignRequest(sr)).toMatchObject({ participants: [{ status: 'Bounced' }] });
  });

  it.each([
    [{ role: { sequence: -1 } }, 'invalid-value', 'participants[0].role.sequence'],
    [{ role: { sequence: 0.5 } }, 'wrong-type', 'participants[0].role.sequence'],
    [{ role: [] }, 'wrong-type', 'participants[0].role'],
    [{ email: 'a b@example.com' }, 'invalid-value', 'participants[0].email'],
    [{ email: '' }, 'invalid-value', 'participants[0].email'],
    [{ email: `${'a'.repeat(250)}@b.cd` }, 'invalid-value', 'participants[0].email'],
    [{ status: 7 }, 'wrong-type', 'participants[0].status'],
    [{ fieldData: {} }, 'wrong-type', 'participants[0].fieldData'],
    [{ name: ['Ada'] }, 'wrong-type', 'participants[0].name'],
  ])('rejects %j', (patch, kind, path) => {
    expect(pathsOf(withParticipant(patch))).toEqual([[kind, path]]);
  });

  it('reports the exact path of a deep error', () => {
    const input = withParticipant({
      fieldData: [{ id: 31, fieldId: 41 }, { fieldId: '41' }],
    });
    expect(pathsOf(input)).toEqual([['wrong-type', 'participants[0].fieldData[1].fieldId']]);
  });

  it.each([
    [{ imageContent: 'iVBORw0KGgo' }, 'imageContent'],
    [{ imageContent: 'iVBO Rw0K' }, 'imageContent'],
    [{ imageMimetype: 'image' }, 'imageMimetype'],
    [{ imageMimetype: 'image/png; charset=x' }, 'imageMimetype'],
  ])('rejects fieldData %j', (patch, member) => {
    expect(pathsOf(withParticipant({ fieldData: [patch] }))).toEqual([
      ['invalid-value', `participants[0].fieldData[0].${member}`],
    ]);
  });

  it('reports holes of sparse arrays', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point of the test
    const input = withRoot({ participants: [{}, , {}] });
    expect(pathsOf(input)).toEqual([['wrong-type', 'participants[1]']]);
  });
});

describe('fields', () => {
  it.each([
    [{ required: 'true' }, 'fields[0].required'],
    [{ isMasked: 0 }, 'fields[0].isMasked'],
    [{ type: null }, 'fields[0].type'],
  ])('rejects %j', (patch, path) => {
    expect(pathsOf(withField(patch))).toEqual([['wrong-type', path]]);
  });

  it('keeps any field type', () => {
    const sr = decodeSignRequest(withField({ type: 'initials' }))._unsafeUnwrap();
    expect(sr.fields?.[0]?.type).toBe('initials');
  });
});

describe('collecting every problem', () => {
  it('reports problems of all levels in document order', () => {
    const input = {
      id: 'x',
      status: 'Open',
      formType: 'Form',
      savedTime: '2024-13-01 00:00:00',
      participants: [{ role: { id: 1.5 } }, { fieldData: [{ imageMimetype: 3 }] }],
      fields: [{ roleId: 99 }],
    };
    expect(pathsOf(input)).toEqual([
      ['wrong-type', 'id'],
      ['missing-member', 'name'],
      ['invalid-value', 'status'],
      ['invalid-value', 'savedTime'],
      ['wrong-type', 'participants[0].role.id'],
      ['wrong-type', 'participants[1].fieldData[0].imageMimetype'],
    ]);
  });

  it('stops after 1000 problems and says so', () => {
    const errors = errorsOf(withRoot({ fields: Array.from({ length: 5000 }, () => 1) }));
    expect(errors).toHaveLength(1001);
    expect(errors.at(-1)).toMatchObject({ kind: 'invalid-value', path: '' });
    expect(errors.at(-1)?.message).toContain('stopped');
  });
});

describe('participant status helpers', () => {
  it('narrow known values and give back the wire text of either kind', () => {
    const statuses = ['Signed', 'VIEWED', 'Bounced', 'signed '].map(
      (status) =>
        decodeSignRequest(withParticipant({ status }))._unsafeUnwrap().participants?.[0]?.status ??
        'sent',
    );
    expect(statuses.map(isKnownParticipantStatus)).toEqual([true, true, false, false]);
    expect(statuses.map(participantStatusText)).toEqual(['signed', 'viewed', 'Bounced', 'signed ']);
  });
});
