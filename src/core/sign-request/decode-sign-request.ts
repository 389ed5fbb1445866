/**
 * Decoding of untrusted sign-request input (docs/service-interface.md). Total: whatever the
 * input, it returns a result and never throws.
 */
import { err, ok, type Result } from 'neverthrow';
import { type DecodeError, decodeError, describeValue } from '../decode-error.js';
import { checkCrossReferences } from './cross-references.js';
import { decodeNode, INVALID, isFull, isJsonObject, MAX_DECODE_ERRORS } from './decode-shape.js';
import type { SignRequest } from './sign-request.js';
import { SIGN_REQUEST_SHAPE } from './sign-request-shape.js';

const decodeChecked = (input: unknown, errors: DecodeError[]): unknown => {
  if (!isJsonObject(input)) {
    errors.push(
      decodeError(
        'not-an-object',
        '',
        `expected a sign request object, got ${describeValue(input)}`,
      ),
    );
    return INVALID;
  }
  const decoded = decodeNode(SIGN_REQUEST_SHAPE, input, '', errors);
  // Once the list is full the input is hopeless; reading it again would only cost time.
  if (!isFull(errors)) checkCrossReferences(input, errors);
  return decoded;
};

/**
 * Decodes and validates a sign request (docs/service-interface.md) from parsed JSON.
 *
 * Every problem is reported with its path (`status`,
 * `participants[1].fieldData[0].fieldId`, `''` for the whole input), up to
 * `MAX_DECODE_ERRORS` (1,000), after which a last error with path `''` says the
 * list was cut. Members the service interface does not list are ignored; the result is built fresh
 * and shares nothing with the input.
 *
 * @param input - any value, typically the result of `JSON.parse`.
 * @returns the sign request, or the non-empty list of problems.
 */
export const decodeSignRequest = (input: unknown): Result<SignRequest, DecodeError[]> => {
  const errors: DecodeError[] = [];
  let decoded: unknown;
  try {
    decoded = decodeChecked(input, errors);
  } catch {
    // Only non-JSON input gets here: a getter or proxy that throws while being read.
    // The thrown value is not inspected, as even reading its message could throw.
    return err([...errors, decodeError('invalid-value', '', 'input could not be read')]);
  }
  if (isFull(errors)) {
    return err([
      ...errors.slice(0, MAX_DECODE_ERRORS),
      decodeError('invalid-value', '', `${MAX_DECODE_ERRORS} problems or more; stopped looking`),
    ]);
  }
  if (errors.length > 0 || decoded === INVALID) return err(errors);
  // The description is checked against SignRequest by its Shape<SignRequest> type.
  return ok(decoded as SignRequest);
};
