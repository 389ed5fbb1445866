/**
 * `JSON.stringify` of the envelope `{ position, receivedAt, deliveryId, event }`
 * (no `deliveryId` member when `undefined`), in that order, without making it.
 */
export const envelopeText = (
  position: number,
  receivedAt: string,
  deliveryId: string | undefined,
  event: unknown,
): string => {
  const id = deliveryId === undefined ? '' : `,"deliveryId":${JSON.stringify(deliveryId)}`;
  return `{"position":${position},"receivedAt":${JSON.stringify(receivedAt)}${id},"event":${JSON.stringify(event)}}`;
};

/**
 * An entry record whose `raw` text is made when it is read (see
 * `ReadOptions.lazyRaw`). The line scanner only accepts compact JSON that
 * `JSON.stringify` writes back byte for byte: no whitespace, no escapes,
 * integers as written, members in the order read. So the text of such a line
 * is `JSON.stringify` of its parsed value, and keeping the value is enough: a
 * replay that never quarantines the record never builds the string (one
 * string per line cost ~15% of a replay of 30,000 open sign requests).
 */
export class ScannedEntry {
  readonly kind = 'entry';
  readonly position: number;
  readonly line: number;
  readonly receivedAt: string | undefined;
  readonly deliveryId: string | undefined;
  readonly event: unknown;
  /**
   * The whole parsed line: the envelope, or the bare event (then `event`
   * itself); `undefined` for an envelope in the log's own member order, made
   * again from the members (see {@link envelopeText}).
   */
  readonly #parsed: object | undefined;

  /** An entry of the line whose parsed value is `parsed` (envelope or bare event). */
  constructor(
    position: number,
    line: number,
    receivedAt: string | undefined,
    deliveryId: string | undefined,
    event: unknown,
    parsed: object | undefined,
  ) {
    this.position = position;
    this.line = line;
    this.receivedAt = receivedAt;
    this.deliveryId = deliveryId;
    this.event = event;
    this.#parsed = parsed;
  }

  /** The whole stored line, without its newline. */
  get raw(): string {
    if (this.#parsed !== undefined) return JSON.stringify(this.#parsed);
    return envelopeText(this.position, this.receivedAt ?? '', this.deliveryId, this.event);
  }
}
