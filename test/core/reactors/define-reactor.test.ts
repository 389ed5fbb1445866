import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, defineReactor } from '../../../src/core/reactors/define-reactor.js';

const react = () => [];

describe('defineReactor', () => {
  it('completes the retry policy with the documented defaults', () => {
    const reactor = defineReactor({ name: 'crm', react, retry: { maxAttempts: 3 } });
    expect(reactor.retry).toEqual({ ...DEFAULT_RETRY, maxAttempts: 3 });
    expect(DEFAULT_RETRY).toEqual({ maxAttempts: 8, baseDelayMs: 1000, maxDelayMs: 300_000 });
    expect(reactor.sql).toBeUndefined();
  });

  it.each([
    ['a bad name', { name: 'a b', react }],
    ['an empty name', { name: '', react }],
    ['a name of 65 characters', { name: 'a'.repeat(65), react }],
    ['a name starting with a dot', { name: '.x', react }],
    ['react not a function', { name: 'x', react: 1 }],
    ['execute not a function', { name: 'x', react, execute: 'no' }],
    ['maxAttempts 0', { name: 'x', react, retry: { maxAttempts: 0 } }],
    ['a fractional delay', { name: 'x', react, retry: { baseDelayMs: 1.5 } }],
    ['maxDelayMs < baseDelayMs', { name: 'x', react, retry: { baseDelayMs: 10, maxDelayMs: 5 } }],
    ['an sql member not a function', { name: 'x', react, sql: { note: 'insert' } }],
  ])('throws a TypeError on %s', (_what, definition) => {
    // biome-ignore lint/suspicious/noExplicitAny: bad definitions on purpose.
    expect(() => defineReactor(definition as any)).toThrow(TypeError);
  });

  it('accepts a name of 64 characters with dots, dashes and underscores', () => {
    expect(defineReactor({ name: `a${'._-'.repeat(21)}`, react }).name).toHaveLength(64);
  });
});
