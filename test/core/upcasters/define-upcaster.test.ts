import { describe, expect, it } from 'vitest';
import { defineUpcaster } from '../../../src/core/upcasters/define-upcaster.js';
import { upcastRecord } from '../../../src/core/upcasters/upcast-record.js';

const to = (wire: unknown) => wire;

describe('defineUpcaster', () => {
  it('keeps name, from and to, frozen', () => {
    const upcaster = defineUpcaster({ name: 'v1.rename_x', from: 'old-type', to });
    expect(upcaster).toEqual({ name: 'v1.rename_x', from: 'old-type', to });
    expect(Object.isFrozen(upcaster)).toBe(true);
  });

  it.each([
    ['no definition', undefined],
    ['a bad name', { name: 'a b', from: 'x', to }],
    ['an empty name', { name: '', from: 'x', to }],
    ['a name of 65 characters', { name: 'a'.repeat(65), from: 'x', to }],
    ['a name with a control character', { name: 'a\u001b', from: 'x', to }],
    ['an empty from', { name: 'u', from: '', to }],
    ['a from of 201 characters', { name: 'u', from: 'x'.repeat(201), to }],
    ['a from neither a string nor a function', { name: 'u', from: 3, to }],
    ['to not a function', { name: 'u', from: 'x', to: 'y' }],
  ])('throws a TypeError on %s', (_what, definition) => {
    // biome-ignore lint/suspicious/noExplicitAny: bad definitions on purpose.
    expect(() => defineUpcaster(definition as any)).toThrow(TypeError);
  });

  it('names the upcaster in the message', () => {
    // biome-ignore lint/suspicious/noExplicitAny: a bad definition on purpose.
    expect(() => defineUpcaster({ name: 'rename', from: 'x', to: 1 } as any)).toThrow(
      'upcaster "rename": to must be a function',
    );
  });
});

describe('upcastRecord', () => {
  const rename = defineUpcaster({
    name: 'rename',
    from: 'old',
    to: ({ type: _type, ...rest }) => ({ ...rest, type: 'new' }),
  });
  const split = defineUpcaster({ name: 'split', from: 'new', to: (w) => [w, { ...w, n: 2 }] });

  it('is ok(undefined) when no upcaster applies', () => {
    const result = upcastRecord([rename], { type: 'other' });
    expect(result.isOk() && result.value).toBeUndefined();
  });

  it('chains in order, each upcaster seeing every value the ones before made', () => {
    const result = upcastRecord([rename, split], { type: 'old', a: 1 });
    expect(result._unsafeUnwrap()).toEqual([
      { value: { type: 'new', a: 1 }, by: ['rename', 'split'] },
      { value: { type: 'new', a: 1, n: 2 }, by: ['rename', 'split'] },
    ]);
    // The other order: split does not apply to the old type, so only rename ran.
    expect(upcastRecord([split, rename], { type: 'old' })._unsafeUnwrap()).toEqual([
      { value: { type: 'new' }, by: ['rename'] },
    ]);
  });

  it('is an empty list when the record is dropped', () => {
    const drop = defineUpcaster({ name: 'drop', from: 'old', to: () => [] });
    expect(upcastRecord([drop, split], { type: 'old' })._unsafeUnwrap()).toEqual([]);
  });

  it('applies a string from only to objects of that type', () => {
    for (const wire of [null, 42, 'old', ['old'], { type: ['old'] }]) {
      expect(upcastRecord([rename], wire)._unsafeUnwrap()).toBeUndefined();
    }
  });

  it('shows a predicate only JSON objects: an array record is never read as a list of events', () => {
    const seen: unknown[] = [];
    const identity = defineUpcaster({ name: 'identity', from: (w) => seen.push(w) > 0, to });
    for (const wire of [null, 42, [], [{ type: 'old' }]]) {
      expect(upcastRecord([identity], wire)._unsafeUnwrap()).toBeUndefined();
    }
    expect(seen).toEqual([]);
    expect(upcastRecord([identity], { type: 'x' })._unsafeUnwrap()).toEqual([
      { value: { type: 'x' }, by: ['identity'] },
    ]);
  });

  it.each([
    [
      'to throws',
      {
        from: 'old',
        to: () => {
          throw new Error('boom');
        },
      },
      'upcaster "bad" threw: boom',
    ],
    [
      'from throws',
      {
        from: () => {
          throw new Error('no');
        },
        to,
      },
      'upcaster "bad" from threw: no',
    ],
    [
      'to returns undefined',
      { from: 'old', to: () => undefined },
      'upcaster "bad" returned nothing (return [] for no event)',
    ],
    [
      'to returns null',
      { from: 'old', to: () => null },
      'upcaster "bad" returned nothing (return [] for no event)',
    ],
  ])('is an err naming the upcaster when %s', (_what, definition, message) => {
    const bad = defineUpcaster({ name: 'bad', ...definition });
    expect(upcastRecord([bad], { type: 'old' })._unsafeUnwrapErr()).toEqual({
      upcaster: 'bad',
      message,
    });
  });

  it('never throws on a hostile record (a revoked proxy)', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const result = upcastRecord([rename], proxy);
    expect(result.isErr()).toBe(true);
  });
});
