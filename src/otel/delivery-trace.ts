/**
 * The trace of a delivery, found from its delivery id alone. The process
 * that appends a delivery cannot hand a context to the worker that projects
 * it later, and the log stores none (its format, and PostgreSQL's table, stay
 * as they are): so every process derives the same trace id and the same
 * parent span id from the delivery id, and each span of that delivery is a
 * child of that parent, which is never recorded itself. Backends show one
 * trace per delivery id, its root a span they never received.
 */
import { createHash } from 'node:crypto';

/** The ids of the trace every span of one delivery joins. */
export interface DeliveryTrace {
  /** 32 lower-case hex digits, never all zeros. */
  readonly traceId: string;
  /** 16 lower-case hex digits, never all zeros: the unrecorded root's. */
  readonly spanId: string;
}

/** `hex`, or the same with a last digit of 1 when it is all zeros (an invalid id). */
const valid = (hex: string): string => (/^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex);

/**
 * The trace of the delivery `deliveryId`: the first 24 bytes of SHA-256 of
 * the id, after a prefix that keeps these ids apart from any other use of
 * the same hash.
 */
export const deliveryTrace = (deliveryId: string): DeliveryTrace => {
  const digest = createHash('sha256').update(`signfold delivery\u0000${deliveryId}`).digest('hex');
  return { traceId: valid(digest.slice(0, 32)), spanId: valid(digest.slice(32, 48)) };
};
