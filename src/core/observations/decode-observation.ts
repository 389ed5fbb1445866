import { err, ok, type Result } from 'neverthrow';
import { type DecodeError, decodeError, describeValue } from '../decode-error.js';
import { wireId } from '../events/wire-id.js';
import type { CompanyId } from '../ids.js';
import { decodeSignRequest } from '../sign-request/decode-sign-request.js';
import { OBSERVATION_RECORD, type Observation } from './observation.js';

const MEMBERS = new Set(['record', 'signRequestId', 'companyId', 'fetchedAt', 'signRequest']);
// A full ISO 8601 date-time: what `observationRecord` writes and `Date.parse` reads the same everywhere.
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

const decodeMembers = (value: object): DecodeError | undefined => {
  const members = value as Record<string, unknown>;
  if (members.record !== OBSERVATION_RECORD) {
    return decodeError(
      'invalid-value',
      'record',
      `an observation record has record "${OBSERVATION_RECORD}" (got ${describeValue(members.record)})`,
    );
  }
  if (Object.hasOwn(value, 'type')) {
    return decodeError('member-not-allowed', 'type', 'an observation record has no type member');
  }
  for (const name of Object.keys(value)) {
    if (!MEMBERS.has(name)) {
      return decodeError(
        'unknown-member',
        name,
        `unknown member "${name}" in an observation record`,
      );
    }
  }
  for (const name of ['signRequestId', 'fetchedAt', 'signRequest']) {
    if (!Object.hasOwn(value, name)) {
      return decodeError(
        'missing-member',
        name,
        `missing member "${name}" in an observation record`,
      );
    }
  }
  if (wireId(members.signRequestId) === undefined) {
    return decodeError(
      'wrong-type',
      'signRequestId',
      `expected an id, got ${describeValue(members.signRequestId)}`,
    );
  }
  if (Object.hasOwn(value, 'companyId') && wireId(members.companyId) === undefined) {
    return decodeError(
      'wrong-type',
      'companyId',
      `expected an id, got ${describeValue(members.companyId)}`,
    );
  }
  const fetchedAt = members.fetchedAt;
  if (
    typeof fetchedAt !== 'string' ||
    !ISO_TIME.test(fetchedAt) ||
    Number.isNaN(Date.parse(fetchedAt))
  ) {
    return decodeError(
      'invalid-value',
      'fetchedAt',
      `expected an ISO 8601 date-time such as 2026-11-27T12:00:00.000Z, got ${describeValue(fetchedAt)}`,
    );
  }
  return undefined;
};

/**
 * Decodes an observation record read from a log (see {@link Observation}):
 * its members, then the representation with `decodeSignRequest`, whose first
 * problem is returned with its path under `signRequest`. Unknown members are
 * refused: the record is signfold's own format, so a stray member is a bug or
 * a forgery, never a newer service. Never throws.
 */
export const decodeObservation = (value: unknown): Result<Observation, DecodeError> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return err(
      decodeError(
        'not-an-object',
        '',
        `an observation record is a JSON object, got ${describeValue(value)}`,
      ),
    );
  }
  const wrong = decodeMembers(value);
  if (wrong !== undefined) return err(wrong);
  const members = value as Record<string, unknown>;
  const decoded = decodeSignRequest(members.signRequest);
  if (decoded.isErr()) {
    const first = decoded.error[0] ?? decodeError('invalid-value', '', 'not a sign request');
    const path = first.path === '' ? 'signRequest' : `signRequest.${first.path}`;
    return err(decodeError(first.kind, path, first.message));
  }
  const signRequest = decoded.value;
  if (signRequest.id !== wireId(members.signRequestId)) {
    return err(
      decodeError(
        'invalid-value',
        'signRequestId',
        `signRequestId ${String(members.signRequestId)} does not match signRequest.id ${signRequest.id}`,
      ),
    );
  }
  const companyId = wireId(members.companyId) as CompanyId | undefined;
  return ok({
    signRequest,
    fetchedAt: members.fetchedAt as string,
    ...(companyId === undefined ? {} : { companyId }),
  });
};
