/**
 * Validates and serializes appended items, the part of every log's `append`
 * that does not depend on where events are stored (file, memory, PostgreSQL).
 * It runs before any position is assigned, so a rejected event never
 * consumes a position.
 */
import { err, ok, type Result } from 'neverthrow';
import type { AppendRefusal, NewRecord } from './event-log.js';
import { JsonText } from './json-text.js';
import type { WriteLimits } from './log-limits.js';

/** An item that passed validation, ready for a position. */
export interface EncodedRecord {
  /** What is stored and read back: a {@link JsonText}'s own text, else `JSON.stringify(event)`. */
  readonly eventJson: string;
  readonly deliveryId: string | undefined;
  readonly receivedAt: string;
}

/**
 * Upper bound of the envelope's own bytes: member names, a 16-digit position,
 * a quoted ISO time stamp (up to 27 characters for extended years) and
 * punctuation. Used to check the line limit before the position is known.
 */
const ENVELOPE_OVERHEAD_BYTES = 100;

/**
 * The stored text of an event: a {@link JsonText} as it is (validated when it
 * was made), anything else by `JSON.stringify`.
 */
const serializeEvent = (event: unknown): Result<string, AppendRefusal> => {
  if (event instanceof JsonText) return ok(event.text);
  let eventJson: string | undefined;
  try {
    // JSON.stringify returns undefined (not a string) for undefined, functions and symbols.
    eventJson = JSON.stringify(event) as string | undefined;
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    return err({ kind: 'not-serializable', message: `event is not JSON-serializable: ${detail}` });
  }
  if (eventJson === undefined) {
    return err({ kind: 'not-serializable', message: 'event has no JSON representation' });
  }
  return ok(eventJson);
};

/** Validates and serializes one item against the limits. */
export const encodeItem = (
  item: NewRecord,
  limits: WriteLimits,
  now: () => Date,
): Result<EncodedRecord, AppendRefusal> => {
  const { deliveryId } = item;
  if (deliveryId !== undefined && typeof deliveryId !== 'string') {
    return err({ kind: 'not-serializable', message: 'deliveryId must be a string' });
  }
  const date = item.receivedAt ?? now();
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    return err({ kind: 'not-serializable', message: 'receivedAt must be a valid Date' });
  }
  const serialized = serializeEvent(item.event);
  // Once per appended event: a plain early return, no generator or closure (performance).
  if (serialized.isErr()) return err(serialized.error);
  const eventJson = serialized.value;
  const eventBytes = Buffer.byteLength(eventJson);
  if (eventBytes > limits.maxEventBytes) {
    const message = `event is ${eventBytes} bytes, over the limit of ${limits.maxEventBytes}`;
    return err({ kind: 'too-large', size: eventBytes, limit: limits.maxEventBytes, message });
  }
  const idBytes = deliveryId === undefined ? 0 : Buffer.byteLength(JSON.stringify(deliveryId));
  const lineBytes = eventBytes + idBytes + ENVELOPE_OVERHEAD_BYTES;
  // Never write a line the reader would reject as too long.
  if (lineBytes > limits.maxLineBytes) {
    const message = `envelope line would be ${lineBytes} bytes, over the line limit of ${limits.maxLineBytes}`;
    return err({ kind: 'too-large', size: lineBytes, limit: limits.maxLineBytes, message });
  }
  return ok({ eventJson, deliveryId, receivedAt: date.toISOString() });
};

/** Validates all items; the first failure fails the whole batch. */
export const encodeItems = (
  items: readonly NewRecord[],
  limits: WriteLimits,
  now: () => Date,
): Result<readonly EncodedRecord[], AppendRefusal> => {
  const encoded: EncodedRecord[] = [];
  for (const item of items) {
    const result = encodeItem(item, limits, now);
    // Once per appended event: a plain early return, no generator or closure (performance).
    if (result.isErr()) return err(result.error);
    encoded.push(result.value);
  }
  return ok(encoded);
};
