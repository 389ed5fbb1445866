/** What went wrong while decoding untrusted input. */
export type DecodeErrorKind =
  | 'invalid-json'
  | 'not-an-object'
  | 'unknown-type'
  | 'missing-member'
  | 'wrong-type'
  | 'invalid-value'
  | 'member-not-allowed'
  | 'unknown-member'
  | 'conflicting-spelling'
  | 'unknown-reference'
  | 'too-large';

/**
 * A precise decoding problem. `path` names the member, e.g. `senderId` or
 * `participants[1].fieldData[0].fieldId`; it is `''` for the value as a whole.
 */
export interface DecodeError {
  readonly kind: DecodeErrorKind;
  readonly path: string;
  readonly message: string;
}

/** Builds a {@link DecodeError}. */
export const decodeError = (kind: DecodeErrorKind, path: string, message: string): DecodeError => ({
  kind,
  path,
  message,
});

/**
 * One line for a decoding problem: `path: message`, or the message alone when
 * the problem is about the value as a whole (`path` is `''`), so a root error
 * never reads `: invalid JSON…`. With `root`, the value as a whole is named
 * that instead (`(root): invalid JSON…`), for output where every line must
 * start with a path.
 *
 * @example
 * ```ts
 * import { decodeEventJson, formatDecodeError } from 'signfold';
 *
 * decodeEventJson('{"type":"template-deleted"}').match(
 *   (event) => console.log(event.type),
 *   (error) => console.log(`rejected: ${formatDecodeError(error)}`),
 * ); // rejected: companyId: missing member "companyId" for template-deleted
 * ```
 */
export const formatDecodeError = (error: DecodeError, root?: string): string => {
  const path = error.path === '' ? root : error.path;
  return path === undefined ? error.message : `${path}: ${error.message}`;
};

/** Describes the JSON kind of a value for error messages (`null`, `array`, `string`, `float`...). */
export const describeValue = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'non-finite number';
    if (!Number.isInteger(value)) return `float ${value}`;
    if (!Number.isSafeInteger(value)) return `unsafe integer ${value}`;
    return `integer ${value}`;
  }
  if (typeof value === 'string') {
    return value.length > 40
      ? `string "${value.slice(0, 40)}…"`
      : `string ${JSON.stringify(value)}`;
  }
  return typeof value;
};
