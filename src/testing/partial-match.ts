/**
 * Partial matching for expectations: every member the expectation names must
 * equal the actual one (deeply); members it leaves out are not compared.
 * `node:assert`'s `partialDeepStrictEqual` would do, but needs Node 22.13.
 */
import { isDeepStrictEqual } from 'node:util';

/** The members of `expected` whose actual value differs (dotted paths), empty when it matches. */
export const mismatchedMembers = (actual: unknown, expected: unknown, path = ''): string[] => {
  if (!isPlainObject(expected) || !isPlainObject(actual)) {
    return isDeepStrictEqual(actual, expected) ? [] : [path === '' ? '(the value)' : path];
  }
  const mismatches: string[] = [];
  for (const [key, value] of Object.entries(expected)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (value === undefined) {
      if (Object.hasOwn(actual, key) && actual[key] !== undefined) mismatches.push(at);
    } else {
      mismatches.push(...mismatchedMembers(actual[key], value, at));
    }
  }
  return mismatches;
};

/** The members of `actual` that `expected` names, for a focused diff. */
export const pickNamed = (actual: unknown, expected: unknown): unknown => {
  if (!isPlainObject(expected) || !isPlainObject(actual)) return actual;
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(expected)) picked[key] = pickNamed(actual[key], expected[key]);
  return picked;
};

const isPlainObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
