/**
 * The idempotency key of an effect: derived from where it came from (the
 * reactor, the event's log position, the item's index in `react`'s array),
 * so it is the same across retries, restarts and workers without being
 * stored first. Printable ASCII, since reactor names are and numbers are.
 */

/** `${reactorName}:${position}:${index}`. */
export const idempotencyKeyOf = (reactorName: string, position: number, index: number): string =>
  `${reactorName}:${position}:${index}`;
