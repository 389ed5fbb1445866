/**
 * The quarantine reasons of upcasting: both are `invalid-event` (the record
 * did not become events) and name the upcaster, so a reader knows which
 * rewrite to fix rather than which stored line.
 */
import { type DecodeError, decodeError, formatDecodeError } from '../core/decode-error.js';
import type { UpcastFailure } from '../core/upcasters/upcast-record.js';
import type { QuarantineReason } from './quarantine.js';

/** An upcaster threw, or returned nothing. */
export const upcastFailed = (failure: UpcastFailure): QuarantineReason => {
  const error = decodeError('invalid-value', '', failure.message);
  return { kind: 'invalid-event', error, message: failure.message };
};

/** What upcasters made does not decode: the decoder's error, prefixed with who made it. */
export const invalidUpcast = (error: DecodeError, by: readonly string[]): QuarantineReason => ({
  kind: 'invalid-event',
  error,
  message: `after upcaster ${by.map((name) => `"${name}"`).join(', ')}: ${formatDecodeError(error)}`,
});
