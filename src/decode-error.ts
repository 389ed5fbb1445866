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
