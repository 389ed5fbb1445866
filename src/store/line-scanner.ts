/**
 * The reader's fast path for well-formed lines: parses the compact JSON the
 * log and the e-signature service write (`{"type":"…","companyId":1,…}`, or
 * an envelope around it) straight from the bytes, without decoding the chunk
 * to a string first, and shares repeated strings (names, types) instead of
 * building a fresh copy on every line.
 *
 * It says yes or "don't know": anything outside that narrow form (whitespace,
 * escapes, control characters, fractions, negative or long numbers, arrays,
 * literals, deeper nesting, a member name it does not know, a repeated member,
 * a replacement character or invalid UTF-8 in a string) returns `undefined`,
 * and the caller falls back to decoding the line and `JSON.parse`, which give
 * the precise verdict. When it says yes, the value equals what `JSON.parse`
 * returns for the line: same members, same order, same values (a property
 * test checks this against `JSON.parse` on generated and hostile lines).
 */
import { MEMBER_KINDS, WIRE_PARTICIPANT_NAME } from '../events/event-members.js';

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const BACKSLASH = 0x5c;
const ZERO = 0x30;
const NINE = 0x39;
const REPLACEMENT_CHAR = '\uFFFD';

/** Longer digit runs may not be exact doubles: `JSON.parse` decides those. */
const MAX_DIGITS = 15;
/** Longer strings are rarely repeated: built directly, not looked up. */
const MAX_SHARED_LENGTH = 96;
const TABLE_BITS = 16;
const TABLE_MASK = (1 << TABLE_BITS) - 1;

/**
 * The member names it accepts (an event's and an envelope's), each with the
 * bit it sets in an object's "seen" mask. Any other name (`__proto__` among
 * them) goes to `JSON.parse`.
 */
const MEMBER_BIT = new Map<string, number>(
  [
    'type',
    ...Object.keys(MEMBER_KINDS),
    WIRE_PARTICIPANT_NAME,
    'position',
    'receivedAt',
    'deliveryId',
    'event',
  ].map((name, i) => [name, 2 ** i]),
);
/** Envelope members whose values are unique per line: not worth sharing. */
const UNSHARED = new Set<string>(['receivedAt', 'deliveryId']);

/** Parses compact JSON lines from bytes; one per reader (it keeps a table of shared strings). */
export class LineScanner {
  /** A direct-mapped table of recently seen strings, by hash of their bytes. */
  readonly #bytes: (Uint8Array | undefined)[] = new Array(TABLE_MASK + 1).fill(undefined);
  readonly #texts: string[] = new Array(TABLE_MASK + 1).fill('');
  /** Where the last successful scan ended (the index after the closing brace). */
  end = 0;
  /** Whether the last scanned line was all ASCII. */
  ascii = true;
  #pos = 0;
  #limit = 0;
  #buf: Buffer = Buffer.alloc(0);

  /**
   * The JSON value of the object starting at `buf[start]` and ending before
   * `limit`, or `undefined` when unsure. On success `end` is the index after
   * its closing brace; the caller checks that the line ends there.
   */
  scan(buf: Buffer, start: number, limit: number): Record<string, unknown> | undefined {
    this.#buf = buf;
    this.#pos = start;
    this.#limit = limit;
    this.ascii = true;
    const value = this.#object(true);
    if (value === undefined) return undefined;
    this.end = this.#pos;
    return value;
  }

  #object(top: boolean): Record<string, unknown> | undefined {
    const buf = this.#buf;
    const limit = this.#limit;
    let pos = this.#pos;
    if (pos >= limit || buf[pos] !== OPEN) return undefined;
    pos += 1;
    const object: Record<string, unknown> = {};
    let seen = 0;
    if (pos < limit && buf[pos] === CLOSE) {
      this.#pos = pos + 1;
      return object;
    }
    for (;;) {
      if (pos >= limit || buf[pos] !== QUOTE) return undefined;
      this.#pos = pos + 1;
      const name = this.#string(true);
      if (name === undefined) return undefined;
      const bit = MEMBER_BIT.get(name);
      if (bit === undefined || (seen & bit) !== 0) return undefined;
      seen |= bit;
      pos = this.#pos;
      if (pos >= limit || buf[pos] !== COLON) return undefined;
      pos += 1;
      if (pos >= limit) return undefined;
      const first = buf[pos] as number;
      let value: unknown;
      if (first === QUOTE) {
        this.#pos = pos + 1;
        value = this.#string(!UNSHARED.has(name));
        if (value === undefined) return undefined;
        pos = this.#pos;
      } else if (first >= ZERO && first <= NINE) {
        let n = first - ZERO;
        let end = pos + 1;
        while (end < limit) {
          const c = buf[end] as number;
          if (c < ZERO || c > NINE) break;
          n = n * 10 + (c - ZERO);
          end += 1;
        }
        // A leading zero followed by digits is not JSON; long runs may round.
        if ((first === ZERO && end > pos + 1) || end - pos > MAX_DIGITS) return undefined;
        value = n;
        pos = end;
      } else if (first === OPEN && top) {
        this.#pos = pos;
        value = this.#object(false);
        if (value === undefined) return undefined;
        pos = this.#pos;
      } else {
        return undefined;
      }
      object[name] = value;
      if (pos >= limit) return undefined;
      const next = buf[pos];
      if (next === CLOSE) {
        this.#pos = pos + 1;
        return object;
      }
      if (next !== COMMA) return undefined;
      pos += 1;
    }
  }

  /** The string starting at `#pos` (after its opening quote), shared through the table if `share`. */
  #string(share: boolean): string | undefined {
    const buf = this.#buf;
    const limit = this.#limit;
    const start = this.#pos;
    let pos = start;
    let hash = 0x811c9dc5;
    let high = 0;
    for (;;) {
      if (pos >= limit) return undefined;
      const c = buf[pos] as number;
      if (c === QUOTE) break;
      // Escapes and raw control characters: let JSON.parse decide.
      if (c === BACKSLASH || c < 0x20) return undefined;
      high |= c;
      hash = Math.imul(hash ^ c, 0x01000193);
      pos += 1;
    }
    this.#pos = pos + 1;
    const length = pos - start;
    if (high >= 0x80) this.ascii = false;
    if (!share || length > MAX_SHARED_LENGTH) return this.#decode(start, pos, high);
    const slot = (hash ^ (hash >>> TABLE_BITS)) & TABLE_MASK;
    const known = this.#bytes[slot];
    if (known !== undefined && known.length === length) {
      let i = 0;
      while (i < length && known[i] === buf[start + i]) i += 1;
      if (i === length) return this.#texts[slot];
    }
    const text = this.#decode(start, pos, high);
    if (text !== undefined) {
      // A copy: the caller reuses its buffer.
      this.#bytes[slot] = Uint8Array.prototype.slice.call(buf, start, pos);
      this.#texts[slot] = text;
    }
    return text;
  }

  #decode(start: number, end: number, high: number): string | undefined {
    if (high < 0x80) return this.#buf.toString('latin1', start, end);
    const text = this.#buf.toString('utf8', start, end);
    // Invalid UTF-8 (or a real U+FFFD): the slow path validates the line precisely.
    return text.includes(REPLACEMENT_CHAR) ? undefined : text;
  }
}
