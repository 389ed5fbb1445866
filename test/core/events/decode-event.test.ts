import { describe, expect, it } from 'vitest';
import type { DecodeError } from '../../../src/core/decode-error.js';
import {
  DEFAULT_MAX_EVENT_LENGTH,
  decodeEvent,
  decodeEventJson,
} from '../../../src/core/events/decode-event.js';
import {
  EVENT_MEMBERS,
  EVENT_TYPES,
  type EventType,
} from '../../../src/core/events/event-members.js';
import type { SignEvent } from '../../../src/core/events/sign-event.js';

/** Spec-shaped wire objects (§6.3 placeholders filled in), one per type. */
const template = (type: EventType) => ({
  type,
  companyId: 1,
  templateId: 100,
  templateName: 'NDA',
  ownerId: 10,
  ownerName: 'Olive',
});
const signRequest = (type: EventType, withTemplate: boolean) => ({
  type,
  companyId: 1,
  signRequestId: 1000,
  signRequestName: 'NDA for Ada',
  ...(withTemplate ? { templateId: 100, templateName: 'NDA' } : {}),
  senderId: 20,
  senderName: 'Sam',
  ownerId: 10,
  ownerName: 'Olive',
});
const participant = (type: EventType, withTemplate: boolean) => ({
  type,
  companyId: 1,
  signRequestId: 1000,
  signRequestName: 'NDA for Ada',
  ...(withTemplate ? { templateId: 100, templateName: 'NDA' } : {}),
  participantId: 5,
  partcipantName: 'Ada',
  roleId: 7,
  roleName: 'Signer',
  senderId: 20,
  senderName: 'Sam',
  ownerId: 10,
  ownerName: 'Olive',
});

const SPEC_SAMPLES: Readonly<Record<EventType, Record<string, unknown>>> = {
  'template-activated': template('template-activated'),
  'template-inactivated': template('template-inactivated'),
  'template-deleted': template('template-deleted'),
  'sign-request-sent': signRequest('sign-request-sent', true),
  'sign-request-completed': signRequest('sign-request-completed', true),
  'sign-request-declined': signRequest('sign-request-declined', false),
  'sign-request-deleted': signRequest('sign-request-deleted', false),
  'participant-sent': participant('participant-sent', true),
  'participant-viewed': participant('participant-viewed', false),
  'participant-downloaded': participant('participant-downloaded', false),
  'participant-signed': participant('participant-signed', true),
  'participant-declined': participant('participant-declined', false),
};

/** The members spec table 6.2 lists for each type besides the four required ones. */
const SPEC_TABLE_6_2: Readonly<Record<EventType, readonly string[]>> = {
  'template-activated': ['templateId', 'templateName'],
  'template-inactivated': ['templateId', 'templateName'],
  'template-deleted': ['templateId', 'templateName'],
  'sign-request-sent': [
    'signRequestId',
    'signRequestName',
    'templateId',
    'templateName',
    'senderId',
    'senderName',
  ],
  'sign-request-completed': [
    'signRequestId',
    'signRequestName',
    'templateId',
    'templateName',
    'senderId',
    'senderName',
  ],
  'sign-request-declined': ['signRequestId', 'signRequestName', 'senderId', 'senderName'],
  'sign-request-deleted': ['signRequestId', 'signRequestName', 'senderId', 'senderName'],
  'participant-sent': [
    'signRequestId',
    'signRequestName',
    'templateId',
    'templateName',
    'participantId',
    'participantName',
    'roleId',
    'roleName',
    'senderId',
    'senderName',
  ],
  'participant-viewed': [
    'signRequestId',
    'signRequestName',
    'participantId',
    'participantName',
    'roleId',
    'roleName',
    'senderId',
    'senderName',
  ],
  'participant-downloaded': [
    'signRequestId',
    'signRequestName',
    'participantId',
    'participantName',
    'roleId',
    'roleName',
    'senderId',
    'senderName',
  ],
  'participant-signed': [
    'signRequestId',
    'signRequestName',
    'templateId',
    'templateName',
    'participantId',
    'participantName',
    'roleId',
    'roleName',
    'senderId',
    'senderName',
  ],
  'participant-declined': [
    'signRequestId',
    'signRequestName',
    'participantId',
    'participantName',
    'roleId',
    'roleName',
    'senderId',
    'senderName',
  ],
};

const sample = (type: EventType, changes: Record<string, unknown> = {}) => ({
  ...SPEC_SAMPLES[type],
  ...changes,
});

const without = (rec: Record<string, unknown>, ...keys: string[]) =>
  Object.fromEntries(Object.entries(rec).filter(([k]) => !keys.includes(k)));

const decodeOk = (input: unknown): SignEvent => {
  const result = decodeEvent(input);
  if (result.isErr()) throw new Error(`expected ok, got ${result.error.message}`);
  return result.value;
};

const decodeErr = (input: unknown, options?: { strict?: boolean }): DecodeError => {
  const result = decodeEvent(input, options);
  if (result.isOk()) throw new Error(`expected err, got ${JSON.stringify(result.value)}`);
  return result.error;
};

describe('decodeEvent: valid events', () => {
  it('knows exactly the 12 types of spec table 6.2', () => {
    expect([...EVENT_TYPES].sort()).toEqual(Object.keys(SPEC_TABLE_6_2).sort());
  });

  it.each(EVENT_TYPES)('decodes a spec-shaped %s with exactly its members', (type) => {
    const decoded = decodeOk(SPEC_SAMPLES[type]);
    const expectedKeys = ['type', 'companyId', 'ownerId', 'ownerName', ...SPEC_TABLE_6_2[type]];
    expect(Object.keys(decoded).sort()).toEqual(expectedKeys.sort());
    expect(decoded.type).toBe(type);
    expect(decoded.companyId).toBe(1);
    expect(decoded.ownerId).toBe(10);
    expect(decoded.ownerName).toBe('Olive');
    if ('participantName' in decoded) expect(decoded.participantName).toBe('Ada');
    if ('templateId' in decoded) expect(decoded.templateId).toBe(100);
  });

  it('has the canonical participantName and never the wire spelling', () => {
    const decoded = decodeOk(SPEC_SAMPLES['participant-signed']);
    expect(decoded).toHaveProperty('participantName', 'Ada');
    expect(decoded).not.toHaveProperty('partcipantName');
  });

  it('accepts the participant name spelled participantName', () => {
    const wire = without(sample('participant-viewed'), 'partcipantName');
    const decoded = decodeOk({ ...wire, participantName: 'Grace' });
    expect(decoded).toHaveProperty('participantName', 'Grace');
  });

  it('accepts both spellings when they carry the same value', () => {
    const decoded = decodeOk(sample('participant-declined', { participantName: 'Ada' }));
    expect(decoded).toHaveProperty('participantName', 'Ada');
    expect(Object.keys(decoded)).not.toContain('partcipantName');
  });

  it('accepts both spellings in strict mode', () => {
    const result = decodeEvent(sample('participant-sent', { participantName: 'Ada' }), {
      strict: true,
    });
    expect(result.isOk()).toBe(true);
  });

  it.each(EVENT_TYPES)('ignores member order (%s)', (type) => {
    const entries = Object.entries(SPEC_SAMPLES[type]);
    const reversed = Object.fromEntries([...entries].reverse());
    expect(decodeOk(reversed)).toEqual(decodeOk(SPEC_SAMPLES[type]));
  });

  it('ignores unknown extra members in the default (lenient) mode and does not copy them', () => {
    const decoded = decodeOk(sample('sign-request-sent', { deliveryId: 'abc', nested: { x: 1 } }));
    expect(decoded).not.toHaveProperty('deliveryId');
    expect(decoded).not.toHaveProperty('nested');
    expect(decodeOk(sample('sign-request-sent', { deliveryId: 'abc' }))).toEqual(
      decodeOk(SPEC_SAMPLES['sign-request-sent']),
    );
  });

  it('accepts empty strings, zero, negative and extreme safe-integer ids', () => {
    const decoded = decodeOk(
      sample('template-activated', {
        templateName: '',
        companyId: 0,
        templateId: Number.MAX_SAFE_INTEGER,
        ownerId: Number.MIN_SAFE_INTEGER,
      }),
    );
    expect(decoded).toMatchObject({
      templateName: '',
      companyId: 0,
      templateId: Number.MAX_SAFE_INTEGER,
      ownerId: Number.MIN_SAFE_INTEGER,
    });
  });

  it('normalises an id of -0 to 0', () => {
    const decoded = decodeOk(sample('template-deleted', { companyId: -0, templateId: -0 }));
    expect(Object.is(decoded.companyId, 0)).toBe(true);
    expect(Object.is((decoded as { templateId: number }).templateId, 0)).toBe(true);
  });

  it('builds a fresh plain object that shares nothing with the input', () => {
    const input = sample('participant-viewed');
    const decoded = decodeOk(input);
    expect(decoded).not.toBe(input);
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    (input as Record<string, unknown>).ownerName = 'changed later';
    expect(decoded.ownerName).toBe('Olive');
  });
});

describe('decodeEvent: errors name the member', () => {
  it.each(
    EVENT_TYPES.flatMap((type) =>
      ['companyId', 'ownerId', 'ownerName', ...SPEC_TABLE_6_2[type]]
        .filter((m) => m !== 'participantName')
        .map((member) => [type, member] as const),
    ),
  )('%s without %s is missing-member', (type, member) => {
    const error = decodeErr(without(SPEC_SAMPLES[type], member));
    expect(error.kind).toBe('missing-member');
    expect(error.path).toBe(member);
    expect(error.message).toContain(`"${member}"`);
  });

  it('a participant event without either name spelling names both', () => {
    const error = decodeErr(without(sample('participant-sent'), 'partcipantName'));
    expect(error).toMatchObject({ kind: 'missing-member', path: 'partcipantName' });
    expect(error.message).toContain('"partcipantName"');
    expect(error.message).toContain('"participantName"');
  });

  it('a missing type is missing-member at path type', () => {
    const error = decodeErr(without(sample('template-activated'), 'type'));
    expect(error).toMatchObject({ kind: 'missing-member', path: 'type' });
    expect(error.message).toContain('"type"');
  });

  it.each([
    ['a string id', '100'],
    ['a numeric string id', '1e3'],
    ['a float', 1.5],
    ['1e400 (Infinity)', JSON.parse('1e400') as number],
    ['-1e400', Number.NEGATIVE_INFINITY],
    ['NaN', Number.NaN],
    ['an unsafe integer', 2 ** 53],
    ['a negative unsafe integer', -(2 ** 53)],
    ['null', null],
    ['a boolean', true],
    ['an array', [100]],
    ['an object', { id: 100 }],
  ])('an id given as %s is wrong-type naming the member', (_label, value) => {
    const error = decodeErr(sample('sign-request-sent', { templateId: value }));
    expect(error.kind).toBe('wrong-type');
    expect(error.path).toBe('templateId');
    expect(error.message).toContain('"templateId"');
    expect(error.message).toContain('safe integer');
  });

  it.each([
    ['a number', 42],
    ['null', null],
    ['a boolean', false],
    ['an array', ['Olive']],
    ['an object', {}],
  ])('a string member given as %s is wrong-type naming the member', (_label, value) => {
    const error = decodeErr(sample('template-activated', { ownerName: value }));
    expect(error).toMatchObject({ kind: 'wrong-type', path: 'ownerName' });
    expect(error.message).toContain('"ownerName"');
    expect(error.message).toContain('string');
  });

  it('reports a wrongly typed participant name under the spelling that was used', () => {
    expect(decodeErr(sample('participant-sent', { partcipantName: 5 }))).toMatchObject({
      kind: 'wrong-type',
      path: 'partcipantName',
    });
    const canonical = { ...without(sample('participant-sent'), 'partcipantName') };
    expect(decodeErr({ ...canonical, participantName: null })).toMatchObject({
      kind: 'wrong-type',
      path: 'participantName',
    });
  });

  it.each([
    [1.5, 'float'],
    [2 ** 53, 'unsafe integer'],
    ['1', 'string "1"'],
    [null, 'null'],
  ])('describes the received value %j in the message as %s', (companyId, described) => {
    expect(decodeErr(sample('template-activated', { companyId })).message).toContain(described);
  });

  it.each([
    ['sign-request-declined', 'templateId'],
    ['sign-request-declined', 'templateName'],
    ['sign-request-deleted', 'templateId'],
    ['participant-viewed', 'templateId'],
    ['participant-declined', 'templateName'],
    ['template-activated', 'signRequestId'],
    ['template-deleted', 'senderName'],
    ['sign-request-sent', 'participantId'],
    ['sign-request-completed', 'roleName'],
    ['sign-request-sent', 'participantName'],
    ['template-inactivated', 'partcipantName'],
  ] as const)('%s with %s is member-not-allowed, even in lenient mode', (type, member) => {
    const value = member.endsWith('Id') ? 1 : 'x';
    const error = decodeErr(sample(type, { [member]: value }));
    expect(error.kind).toBe('member-not-allowed');
    expect(error.path).toBe(member);
    expect(error.message).toContain(`"${member}"`);
    expect(error.message).toContain(type);
  });

  it('a forbidden member set to null is still not allowed', () => {
    expect(decodeErr(sample('sign-request-declined', { templateId: null }))).toMatchObject({
      kind: 'member-not-allowed',
      path: 'templateId',
    });
  });

  it('an unknown type is unknown-type at path type, without a case hint', () => {
    const error = decodeErr(sample('template-activated', { type: 'template-archived' }));
    expect(error).toMatchObject({ kind: 'unknown-type', path: 'type' });
    expect(error.message).toContain('template-archived');
    expect(error.message).not.toContain('lower case');
  });

  it.each(['Template-Activated', 'PARTICIPANT-SIGNED', 'sign-Request-sent'])(
    'type %s in the wrong letter case is unknown-type with a lower-case hint',
    (type) => {
      const error = decodeErr(sample('template-activated', { type }));
      expect(error).toMatchObject({ kind: 'unknown-type', path: 'type' });
      expect(error.message).toContain(`"${type.toLowerCase()}"`);
      expect(error.message).toContain('lower case');
    },
  );

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', ''])(
    'type %j (an Object.prototype name or empty) is unknown-type',
    (type) => {
      expect(decodeErr(sample('template-activated', { type }))).toMatchObject({
        kind: 'unknown-type',
        path: 'type',
      });
    },
  );

  it.each([3, null])('a non-string type (%j) is wrong-type at path type', (type) => {
    expect(decodeErr(sample('template-activated', { type }))).toMatchObject({
      kind: 'wrong-type',
      path: 'type',
    });
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['an array', [SPEC_SAMPLES['template-activated']]],
    ['a string', JSON.stringify(SPEC_SAMPLES['template-activated'])],
    ['a number', 42],
    ['a boolean', true],
  ])('%s is not-an-object at path ""', (_label, input) => {
    const error = decodeErr(input);
    expect(error).toMatchObject({ kind: 'not-an-object', path: '' });
    expect(error.message).toContain('object');
  });

  it('two spellings of the participant name with different values conflict', () => {
    const error = decodeErr(sample('participant-signed', { participantName: 'Grace' }));
    expect(error).toMatchObject({ kind: 'conflicting-spelling', path: 'participantName' });
    expect(error.message).toContain('"partcipantName"');
    expect(error.message).toContain('"participantName"');
  });

  it('strict mode rejects an unknown member by name', () => {
    const error = decodeErr(sample('sign-request-completed', { deliveryId: 'abc' }), {
      strict: true,
    });
    expect(error).toMatchObject({ kind: 'unknown-member', path: 'deliveryId' });
    expect(error.message).toContain('"deliveryId"');
  });

  it.each(EVENT_TYPES)('strict mode accepts a spec-shaped %s', (type) => {
    expect(decodeEvent(SPEC_SAMPLES[type], { strict: true }).isOk()).toBe(true);
  });

  it('strict mode still reports a member of another type as member-not-allowed', () => {
    expect(
      decodeErr(sample('sign-request-declined', { templateId: 1 }), { strict: true }),
    ).toMatchObject({ kind: 'member-not-allowed', path: 'templateId' });
  });
});

describe('decodeEvent: hostile input', () => {
  it('a __proto__ key from JSON.parse neither pollutes Object.prototype nor is copied', () => {
    const text = JSON.stringify(SPEC_SAMPLES['participant-sent']).replace(
      /^\{/,
      '{"__proto__":{"polluted":true,"companyId":99},',
    );
    const parsed: unknown = JSON.parse(text);
    expect(Object.hasOwn(parsed as object, '__proto__')).toBe(true);
    for (const result of [decodeEvent(parsed), decodeEventJson(text)]) {
      const decoded = result._unsafeUnwrap();
      expect(Object.hasOwn(decoded, '__proto__')).toBe(false);
      expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
      expect(decoded.companyId).toBe(1);
      expect((decoded as unknown as Record<string, unknown>).polluted).toBeUndefined();
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('a __proto__ key is an unknown member in strict mode', () => {
    const text = `{"__proto__":{},${JSON.stringify(SPEC_SAMPLES['template-activated']).slice(1)}`;
    expect(decodeEventJson(text, { strict: true })._unsafeUnwrapErr()).toMatchObject({
      kind: 'unknown-member',
      path: '__proto__',
    });
  });

  it('deeply nested junk in an extra member is ignored without recursion', () => {
    let deep: unknown = {};
    for (let i = 0; i < 10_000; i += 1) deep = { deep };
    expect(decodeEvent(sample('template-activated', { junk: deep })).isOk()).toBe(true);
    const error = decodeErr(sample('template-activated', { templateName: deep }));
    expect(error).toMatchObject({ kind: 'wrong-type', path: 'templateName' });
  });

  it('an object with a throwing getter is an err, not a throw', () => {
    const input = { ...sample('template-activated') };
    Object.defineProperty(input, 'templateId', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    const result = decodeEvent(input);
    expect(result.isErr()).toBe(true);
    expect(result._unsafeUnwrapErr().kind).toBe('invalid-value');
  });

  it('a getter throwing a value that cannot be turned into a string is an err, not a throw', () => {
    const input = { ...sample('template-activated') };
    Object.defineProperty(input, 'type', {
      enumerable: true,
      get() {
        throw Object.create(null);
      },
    });
    const result = decodeEvent(input);
    expect(result.isErr()).toBe(true);
  });

  it('a revoked Proxy is an err, not a throw', () => {
    const { proxy, revoke } = Proxy.revocable({ ...sample('template-activated') }, {});
    revoke();
    const result = decodeEvent(proxy);
    expect(result.isErr()).toBe(true);
    expect(result._unsafeUnwrapErr().kind).toBe('invalid-value');
  });

  it('a Proxy whose ownKeys trap throws is an err in strict mode, not a throw', () => {
    const proxy = new Proxy(
      { ...sample('template-activated') },
      {
        ownKeys() {
          throw new Error('no keys');
        },
      },
    );
    expect(decodeEvent(proxy).isOk()).toBe(true);
    expect(decodeEvent(proxy, { strict: true }).isErr()).toBe(true);
  });
});

describe('decodeEventJson', () => {
  it.each(EVENT_TYPES)(
    'decodes JSON text of a %s like decodeEvent decodes the parsed value',
    (type) => {
      const text = JSON.stringify(SPEC_SAMPLES[type]);
      expect(decodeEventJson(text)._unsafeUnwrap()).toEqual(decodeOk(SPEC_SAMPLES[type]));
    },
  );

  it.each(['', '{', '{"type":}', 'undefined', "{'type':'template-activated'}", '{} {}'])(
    'invalid JSON %j is invalid-json at path ""',
    (text) => {
      const error = decodeEventJson(text)._unsafeUnwrapErr();
      expect(error).toMatchObject({ kind: 'invalid-json', path: '' });
      expect(error.message).toContain('JSON');
    },
  );

  it.each(['[1,2]', 'null', '"x"'])(
    'valid JSON that is not an object (%s) is not-an-object',
    (text) => {
      expect(decodeEventJson(text)._unsafeUnwrapErr().kind).toBe('not-an-object');
    },
  );

  it('reads 1e400 as Infinity and rejects it as an id', () => {
    const text = JSON.stringify(sample('template-activated')).replace(
      '"templateId":100',
      '"templateId":1e400',
    );
    expect(decodeEventJson(text)._unsafeUnwrapErr()).toMatchObject({
      kind: 'wrong-type',
      path: 'templateId',
    });
  });

  it('rejects an integer beyond 2^53 written in the text', () => {
    const text = JSON.stringify(sample('template-activated')).replace(
      '"templateId":100',
      '"templateId":9007199254740993',
    );
    expect(decodeEventJson(text)._unsafeUnwrapErr()).toMatchObject({
      kind: 'wrong-type',
      path: 'templateId',
    });
  });

  it('passes options through (strict)', () => {
    const text = JSON.stringify(sample('template-activated', { extra: 1 }));
    expect(decodeEventJson(text).isOk()).toBe(true);
    expect(decodeEventJson(text, { strict: true })._unsafeUnwrapErr().kind).toBe('unknown-member');
  });

  it('accepts text of exactly the default limit and rejects one character more as too-large', () => {
    const json = JSON.stringify(SPEC_SAMPLES['template-activated']);
    const atLimit = json + ' '.repeat(DEFAULT_MAX_EVENT_LENGTH - json.length);
    expect(atLimit.length).toBe(DEFAULT_MAX_EVENT_LENGTH);
    expect(DEFAULT_MAX_EVENT_LENGTH).toBe(1_048_576);
    expect(decodeEventJson(atLimit).isOk()).toBe(true);
    const error = decodeEventJson(`${atLimit} `)._unsafeUnwrapErr();
    expect(error).toMatchObject({ kind: 'too-large', path: '' });
    expect(error.message).toContain(String(DEFAULT_MAX_EVENT_LENGTH));
  });

  it('honours a custom maxLength and checks it before parsing', () => {
    const json = JSON.stringify(SPEC_SAMPLES['template-activated']);
    expect(decodeEventJson(json, { maxLength: json.length }).isOk()).toBe(true);
    expect(decodeEventJson(json, { maxLength: json.length - 1 })._unsafeUnwrapErr().kind).toBe(
      'too-large',
    );
    // Not JSON at all, but too long: the size is what is reported.
    expect(decodeEventJson('x'.repeat(11), { maxLength: 10 })._unsafeUnwrapErr().kind).toBe(
      'too-large',
    );
  });

  it('does not throw on JSON text with a __proto__ member', () => {
    expect(() => decodeEventJson('{"__proto__":null}')).not.toThrow();
    expect(decodeEventJson('{"__proto__":null}')._unsafeUnwrapErr().kind).toBe('missing-member');
  });
});

describe('member table', () => {
  it.each(EVENT_TYPES)(
    'EVENT_MEMBERS lists, for %s, the four required members plus those of table 6.2',
    (type) => {
      expect([...EVENT_MEMBERS[type]].sort()).toEqual(
        ['companyId', 'ownerId', 'ownerName', ...SPEC_TABLE_6_2[type]].sort(),
      );
    },
  );
});
