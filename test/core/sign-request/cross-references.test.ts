import { describe, expect, it } from 'vitest';
import { decodeSignRequest } from '../../../src/core/sign-request/decode-sign-request.js';

const base = {
  id: 1,
  name: 'n',
  status: 'sent',
  formType: 'Form',
  savedTime: '2024-01-01 00:00:00',
};
const pathsOf = (patch: Record<string, unknown>) =>
  decodeSignRequest({ ...base, ...patch }).match(
    () => [],
    (errors) => errors.map((e) => [e.kind, e.path]),
  );

describe('fields[].roleId', () => {
  it('must name a role.id of some participant', () => {
    const input = {
      participants: [{ role: { id: 1 } }, { role: { id: 2 } }],
      fields: [{ roleId: 2 }, { roleId: 1 }, { roleId: 3 }, {}],
    };
    expect(pathsOf(input)).toEqual([['unknown-reference', 'fields[2].roleId']]);
  });

  it('cannot name a role when participants is present but empty', () => {
    expect(pathsOf({ participants: [], fields: [{ roleId: 1 }] })).toEqual([
      ['unknown-reference', 'fields[0].roleId'],
    ]);
  });

  it('is not checked without participants', () => {
    expect(pathsOf({ fields: [{ roleId: 1 }] })).toEqual([]);
  });

  it('is not checked when some participant role id is absent or unreadable', () => {
    expect(pathsOf({ participants: [{ role: { id: 1 } }, {}], fields: [{ roleId: 9 }] })).toEqual(
      [],
    );
    expect(
      pathsOf({
        participants: [{ role: { id: 1 } }, { role: { id: '2' } }],
        fields: [{ roleId: 2 }],
      }),
    ).toEqual([['wrong-type', 'participants[1].role.id']]);
  });

  it('allows participants to share a role', () => {
    expect(
      pathsOf({
        participants: [{ role: { id: 1 } }, { role: { id: 1 } }],
        fields: [{ roleId: 1 }],
      }),
    ).toEqual([]);
  });
});

describe('fieldData[].fieldId', () => {
  it('must name the id of a field', () => {
    const input = {
      participants: [
        { fieldData: [{ fieldId: 5 }] },
        { fieldData: [{ fieldId: 5 }, { fieldId: 6 }] },
      ],
      fields: [{ id: 5 }],
    };
    expect(pathsOf(input)).toEqual([['unknown-reference', 'participants[1].fieldData[1].fieldId']]);
  });

  it('is not checked without fields or when a field id is missing', () => {
    const participants = [{ fieldData: [{ fieldId: 5 }] }];
    expect(pathsOf({ participants })).toEqual([]);
    expect(pathsOf({ participants, fields: [{ id: 1 }, {}] })).toEqual([]);
  });

  it('treats -0 and 0 as the same id', () => {
    expect(
      pathsOf({ participants: [{ fieldData: [{ fieldId: -0 }] }], fields: [{ id: 0 }] }),
    ).toEqual([]);
  });
});

describe('duplicate ids', () => {
  it('are reported at each repetition, naming the first holder', () => {
    const result = decodeSignRequest({
      ...base,
      participants: [{ id: 1 }, { id: 2 }, { id: 1 }, { id: 1 }],
      fields: [{ id: 7 }, { id: 7 }],
    });
    const errors = result._unsafeUnwrapErr();
    expect(errors.map((e) => [e.kind, e.path])).toEqual([
      ['invalid-value', 'participants[2].id'],
      ['invalid-value', 'participants[3].id'],
      ['invalid-value', 'fields[1].id'],
    ]);
    expect(errors[0]?.message).toBe('duplicate id 1: participants[0].id has it too');
  });

  it('are reported alongside other problems of the same input', () => {
    expect(pathsOf({ name: 3, fields: [{ id: 7 }, { id: 7, type: 1 }] })).toEqual([
      ['wrong-type', 'name'],
      ['wrong-type', 'fields[1].type'],
      ['invalid-value', 'fields[1].id'],
    ]);
  });
});
