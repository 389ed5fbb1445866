/**
 * Interprets a {@link ShapeNode} description against untrusted input. Output
 * objects are built fresh from the description's member names only, so input
 * keys such as `__proto__` are never used to assign anything. Recursion follows
 * the description, not the input, so deeply nested input cannot exhaust the stack.
 */
import { type DecodeError, decodeError, describeValue } from '../decode-error.js';
import { matchIgnoringAsciiCase } from './ascii-case.js';
import type {
  EnumNode,
  IntegerNode,
  ObjectNode,
  OpenEnumNode,
  ShapeNode,
  StringNode,
} from './shape.js';
import { STRING_FORMATS } from './string-formats.js';

/** Marks a value that failed to decode; its errors are already recorded. */
export const INVALID: unique symbol = Symbol('invalid');

/**
 * Decoding stops once this many problems are recorded. Untrusted input can hold
 * millions of bad array elements; reporting each would cost far more memory
 * than the input itself, and nobody reads past the first thousand.
 */
export const MAX_DECODE_ERRORS = 1000;

/** Whether the problem list is full and decoding should stop. */
export const isFull = (errors: readonly DecodeError[]): boolean =>
  errors.length >= MAX_DECODE_ERRORS;

type Decoded = unknown;
type Errors = DecodeError[];

/** Path of member `name` below `path` (`''` is the value as a whole). */
const memberPath = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);

/** Whether a value is a JSON object (not null, not an array). */
export const isJsonObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const wrongType = (
  errors: Errors,
  path: string,
  expected: string,
  value: unknown,
): typeof INVALID => {
  errors.push(decodeError('wrong-type', path, `expected ${expected}, got ${describeValue(value)}`));
  return INVALID;
};

const invalid = (errors: Errors, path: string, message: string): typeof INVALID => {
  errors.push(decodeError('invalid-value', path, message));
  return INVALID;
};

const decodeInteger = (
  node: IntegerNode,
  value: unknown,
  path: string,
  errors: Errors,
): Decoded => {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return wrongType(errors, path, 'an integer', value);
  }
  if (!Number.isSafeInteger(value)) {
    return invalid(errors, path, `expected a safe integer, got ${describeValue(value)}`);
  }
  if (value < node.minimum) {
    return invalid(errors, path, `expected an integer of at least ${node.minimum}, got ${value}`);
  }
  // -0 would survive JSON round trips as 0 and break equality checks, so it becomes 0.
  return value === 0 ? 0 : value;
};

const decodeString = (node: StringNode, value: unknown, path: string, errors: Errors): Decoded => {
  if (typeof value !== 'string') return wrongType(errors, path, 'a string', value);
  const problem =
    node.format === undefined ? undefined : STRING_FORMATS[node.format].problem(value);
  return problem === undefined ? value : invalid(errors, path, problem);
};

const listed = (values: readonly string[]): string => values.map((v) => `"${v}"`).join(', ');

const decodeEnum = (node: EnumNode, value: unknown, path: string, errors: Errors): Decoded => {
  if (typeof value !== 'string') return wrongType(errors, path, 'a string', value);
  const match = matchIgnoringAsciiCase(value, node.values);
  if (match !== undefined && (node.caseInsensitive || match === value)) return match;
  if (match !== undefined) {
    return invalid(errors, path, `letter case matters: got "${value}"; did you mean "${match}"?`);
  }
  const anyCase = node.caseInsensitive ? ' (any letter case)' : '';
  return invalid(
    errors,
    path,
    `expected one of ${listed(node.values)}${anyCase}, got ${describeValue(value)}`,
  );
};

const decodeOpenEnum = (node: OpenEnumNode, value: unknown, path: string, errors: Errors) => {
  if (typeof value !== 'string') return wrongType(errors, path, 'a string', value);
  return matchIgnoringAsciiCase(value, node.values) ?? { other: value };
};

const decodeArray = (items: ShapeNode, value: unknown, path: string, errors: Errors): Decoded => {
  if (!Array.isArray(value)) return wrongType(errors, path, 'an array', value);
  const out: Decoded[] = [];
  let failed = false;
  // An index loop rather than map(): holes in sparse arrays must be reported, not skipped.
  for (let i = 0; i < value.length; i++) {
    if (isFull(errors)) return INVALID;
    const element = decodeNode(items, value[i], `${path}[${i}]`, errors);
    if (element === INVALID) failed = true;
    else out.push(element);
  }
  return failed ? INVALID : out;
};

const decodeObject = (node: ObjectNode, value: unknown, path: string, errors: Errors): Decoded => {
  if (!isJsonObject(value)) return wrongType(errors, path, `a ${node.title} object`, value);
  const out: Record<string, Decoded> = {};
  let failed = false;
  for (const [name, member] of Object.entries(node.members)) {
    // Only own members count: an inherited `constructor` or `toString` is not input.
    const raw = Object.hasOwn(value, name) ? value[name] : undefined;
    const at = memberPath(path, name);
    if (raw === undefined) {
      if (member.required) {
        errors.push(decodeError('missing-member', at, 'required member is missing'));
        failed = true;
      }
      continue;
    }
    const decoded = decodeNode(member.shape, raw, at, errors);
    if (decoded === INVALID) failed = true;
    else out[name] = decoded;
  }
  return failed ? INVALID : out;
};

/**
 * Decodes `value` against `node`, pushing every problem found onto `errors`
 * (nothing stops at the first one). Returns {@link INVALID} when any problem was
 * found below `path`.
 */
export const decodeNode = (
  node: ShapeNode,
  value: unknown,
  path: string,
  errors: Errors,
): Decoded => {
  switch (node.kind) {
    case 'integer':
      return decodeInteger(node, value, path, errors);
    case 'string':
      return decodeString(node, value, path, errors);
    case 'boolean':
      return typeof value === 'boolean' ? value : wrongType(errors, path, 'a boolean', value);
    case 'enum':
      return decodeEnum(node, value, path, errors);
    case 'open-enum':
      return decodeOpenEnum(node, value, path, errors);
    case 'array':
      return decodeArray(node.items, value, path, errors);
    case 'object':
      return decodeObject(node, value, path, errors);
  }
};
