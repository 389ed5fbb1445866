/**
 * `defineReactor`: the one place a reactor definition is checked and its
 * retry policy completed, so every runtime (file engine, PostgreSQL, the test
 * kit) sees the same validated shape.
 */
import type { Reactor, ReactorDefinition, RetryPolicy } from './reactor-types.js';

/** The documented retry defaults: 8 attempts, 1 s doubling up to 5 min (before jitter). */
export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  maxAttempts: 8,
  baseDelayMs: 1000,
  maxDelayMs: 300_000,
});

/** Printable ASCII only: the name is part of the idempotency key, which may travel in a header. */
const REACTOR_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const positiveSafeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

const retryPolicyOf = (name: string, retry: ReactorDefinition['retry']): RetryPolicy => {
  if (retry !== undefined && (typeof retry !== 'object' || retry === null)) {
    throw new TypeError(`reactor "${name}": retry must be an object`);
  }
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...(retry ?? {}) };
  for (const member of ['maxAttempts', 'baseDelayMs', 'maxDelayMs'] as const) {
    if (!positiveSafeInteger(policy[member])) {
      throw new TypeError(`reactor "${name}": retry.${member} must be a positive safe integer`);
    }
  }
  if (policy.maxDelayMs < policy.baseDelayMs) {
    throw new TypeError(`reactor "${name}": retry.maxDelayMs must be at least retry.baseDelayMs`);
  }
  return Object.freeze(policy);
};

/**
 * A validated reactor from its definition. Throws a `TypeError` on a bad
 * definition: that is a programming error found at load time, not bad input
 * (a name outside `[A-Za-z0-9][A-Za-z0-9._-]{0,63}`, `react` or `execute` or
 * an `sql` member not a function, retry members not positive safe integers,
 * `maxDelayMs < baseDelayMs`). Missing retry members take `DEFAULT_RETRY`.
 */
export const defineReactor = (definition: ReactorDefinition): Reactor => {
  if (typeof definition !== 'object' || definition === null) {
    throw new TypeError('a reactor definition must be an object');
  }
  const { name, react, execute, retry, sql } = definition;
  if (typeof name !== 'string' || !REACTOR_NAME.test(name)) {
    throw new TypeError(
      `reactor name ${JSON.stringify(name)} must match [A-Za-z0-9][A-Za-z0-9._-]{0,63}`,
    );
  }
  if (typeof react !== 'function') {
    throw new TypeError(`reactor "${name}": react must be a function`);
  }
  if (execute !== undefined && typeof execute !== 'function') {
    throw new TypeError(`reactor "${name}": execute must be a function`);
  }
  if (sql !== undefined && (typeof sql !== 'object' || sql === null)) {
    throw new TypeError(`reactor "${name}": sql must be an object of functions`);
  }
  for (const [type, statement] of Object.entries(sql ?? {})) {
    if (typeof statement !== 'function') {
      throw new TypeError(`reactor "${name}": sql.${type} must be a function`);
    }
  }
  return Object.freeze({
    name,
    react,
    execute,
    retry: retryPolicyOf(name, retry),
    sql: sql === undefined ? undefined : Object.freeze({ ...sql }),
  });
};
