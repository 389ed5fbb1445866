/**
 * Whether a value is plain JSON: what an effect must be, since it is stored
 * (journal, PostgreSQL `json`) and shown exactly as `react` returned it. A
 * class instance, a function, `undefined`, a non-finite number, a cycle or a
 * `toJSON` would all change or break on the way through `JSON.stringify`.
 */
import type { JsonValue } from './reactor-types.js';

/** Deeper nesting is refused rather than risking the stack. */
const MAX_DEPTH = 64;

const isPlainObject = (value: object): boolean => {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

const check = (value: unknown, depth: number, open: Set<object>): boolean => {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') {
    return true;
  }
  if (typeof value === 'number') {
    return Number.isFinite(value);
  }
  if (typeof value !== 'object' || depth > MAX_DEPTH || open.has(value)) {
    return false;
  }
  open.add(value);
  let plain: boolean;
  if (Array.isArray(value)) {
    plain = value.every((item) => check(item, depth + 1, open));
  } else if (isPlainObject(value) && !('toJSON' in value)) {
    plain = Object.values(value).every((member) => check(member, depth + 1, open));
  } else {
    plain = false;
  }
  open.delete(value);
  return plain;
};

/** `true` when `value` survives `JSON.stringify`/`JSON.parse` unchanged. Never throws. */
export const isPlainJson = (value: unknown): value is JsonValue => {
  try {
    return check(value, 0, new Set());
  } catch {
    // A proxy or a getter that throws is not plain data.
    return false;
  }
};
