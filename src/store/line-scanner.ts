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
import { MEMBER_KINDS, WIRE_PARTICIPANT_NAME } from '../core/events/event-members.js';
import { compileBuilder, type Shape, shape } from './object-shapes.js';

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
const MAX_SHARED_LENGTH = 48;
/** Hash bits folded into a table slot: those of the largest table. */
const TABLE_BITS = 15;
/** Slots of the table a scanner starts with. */
const FIRST_SLOTS = 1 << 10;
/**
 * Lines scanned before the table grows to `1 << TABLE_BITS` slots. A short read (`check` of a
 * small log, a request's look at the tail) never pays for the large table: allocating its
 * array of 32,768 strings took 1.2 ms, more than scanning a few hundred lines, and the test
 * suite made one per read, 14 s of its CPU in all.
 */
const GROW_AFTER_LINES = 1 << 12;
/**
 * Member sequences (trie nodes) a scanner learns at most. Real logs have a
 * handful; a hostile file with a new member order on every line would
 * otherwise compile a builder per line. Past the limit, new orders decline.
 */
const MAX_SHAPES = 1024;

/**
 * The member names it accepts (an event's and an envelope's). Any other name
 * (`__proto__` among them) goes to `JSON.parse`.
 */
const NAMES: readonly string[] = [
  'type',
  ...Object.keys(MEMBER_KINDS),
  WIRE_PARTICIPANT_NAME,
  'position',
  'receivedAt',
  'deliveryId',
  'event',
];
const NAME_BYTES = NAMES.map((name) => Buffer.from(name, 'latin1'));
/**
 * Members whose values are (nearly) unique per line or per request: looking
 * them up would only evict the names that do repeat (measured: sharing
 * `signRequestName`, one per request, cost ~5% of a replay of 30,000 open requests).
 */
const UNSHARED = NAMES.map(
  (name) => name === 'receivedAt' || name === 'deliveryId' || name === 'signRequestName',
);
/** The "previous member" slot of an object's first member. */
const FIRST = NAMES.length;
const POSITION = NAMES.indexOf('position');
const RECEIVED_AT = NAMES.indexOf('receivedAt');
const DELIVERY_ID = NAMES.indexOf('deliveryId');
const EVENT = NAMES.indexOf('event');

/**
 * What `scan` returns, with `splitEnvelopes`, for an envelope in the order the
 * log writes (`position`, `receivedAt`, `deliveryId` if any, `event`): its
 * members are in the scanner's `envelope*` fields instead of a fresh object.
 */
export const SCANNED_ENVELOPE: Readonly<Record<string, unknown>> = Object.freeze({});

/** Parses compact JSON lines from bytes; one per reader (it keeps a table of shared strings). */
export class LineScanner {
  /**
   * A direct-mapped table of recently seen strings, by hash of their bytes:
   * the bytes of slot `s` at `s * MAX_SHARED_LENGTH` in one slab (a lookup
   * touches one or two cache lines, not three objects), their length + 1
   * (0: empty slot), and the string. {@link FIRST_SLOTS} slots at first,
   * `1 << TABLE_BITS` after {@link GROW_AFTER_LINES} lines.
   */
  #slab = new Uint8Array(FIRST_SLOTS * MAX_SHARED_LENGTH);
  #lengths = new Uint8Array(FIRST_SLOTS);
  #texts: string[] = new Array(FIRST_SLOTS).fill('');
  #mask = FIRST_SLOTS - 1;
  #lines = 0;
  /** Where the last successful scan ended (the index after the closing brace). */
  end = 0;
  /** Whether the last scanned line was all ASCII. */
  ascii = true;
  #pos = 0;
  #limit = 0;
  // Per nesting level: values of the object being read, the member predicted
  // after each member, and the trie of member sequences.
  readonly #topValues: unknown[] = [];
  readonly #innerValues: unknown[] = [];
  readonly #topNext: Int8Array = new Int8Array(FIRST + 1).fill(-1);
  readonly #innerNext: Int8Array = new Int8Array(FIRST + 1).fill(-1);
  readonly #topShapes: Shape = shape([], FIRST);
  #shapes = 0;
  readonly #innerShapes: Shape = shape([], FIRST);
  #buf: Buffer = Buffer.alloc(0);
  /** The trie nodes of the log's own envelope orders, with and without `deliveryId`; see {@link SCANNED_ENVELOPE}. */
  readonly #envelopes: readonly Shape[];
  /** The members of the last {@link SCANNED_ENVELOPE}. */
  envelopePosition = 0;
  envelopeReceivedAt = '';
  envelopeDeliveryId: string | undefined = undefined;
  envelopeEvent: Record<string, unknown> = {};

  /**
   * With `splitEnvelopes`, an envelope in the log's own member order is
   * returned as {@link SCANNED_ENVELOPE} with its members in fields: one object
   * less per line (the reader's path). Without, `scan` returns exactly what
   * `JSON.parse` would.
   */
  constructor(splitEnvelopes = false) {
    this.#envelopes = splitEnvelopes
      ? [
          this.#path([POSITION, RECEIVED_AT, EVENT]),
          this.#path([POSITION, RECEIVED_AT, DELIVERY_ID, EVENT]),
        ]
      : [];
  }

  /** The top-level trie node of the member sequence `members`, made if new. */
  #path(members: readonly number[]): Shape {
    let node = this.#topShapes;
    for (const member of members) {
      let child = node.next[member];
      if (child === undefined) {
        this.#shapes += 1;
        child = shape([...node.members, member], FIRST);
        node.next[member] = child;
      }
      node = child;
    }
    return node;
  }

  /**
   * Keeps the members of an envelope of one of the log's own shapes (`values`
   * in its order) in the `envelope*` fields; false, keeping nothing, when a
   * member has a kind the reader would not take as such an envelope's.
   */
  #splitEnvelope(values: readonly unknown[], count: number): boolean {
    const position = values[0];
    const receivedAt = values[1];
    const deliveryId = count === 4 ? values[2] : undefined;
    if (typeof position !== 'number' || typeof receivedAt !== 'string') return false;
    if (count === 4 && typeof deliveryId !== 'string') return false;
    this.envelopePosition = position;
    this.envelopeReceivedAt = receivedAt;
    this.envelopeDeliveryId = deliveryId as string | undefined;
    this.envelopeEvent = values[count - 1] as Record<string, unknown>;
    return true;
  }

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
    this.#lines += 1;
    if (this.#lines === GROW_AFTER_LINES) this.#growTable();
    const value = this.#object(true);
    if (value === undefined) return undefined;
    this.end = this.#pos;
    return value;
  }

  /** The table at its full size, empty: it is a cache, so what it held is only looked up again. */
  #growTable(): void {
    const slots = 1 << TABLE_BITS;
    this.#slab = new Uint8Array(slots * MAX_SHARED_LENGTH);
    this.#lengths = new Uint8Array(slots);
    this.#texts = new Array(slots).fill('');
    this.#mask = slots - 1;
  }

  #object(top: boolean): Record<string, unknown> | undefined {
    const buf = this.#buf;
    const limit = this.#limit;
    let pos = this.#pos;
    if (pos >= limit || buf[pos] !== OPEN) return undefined;
    pos += 1;
    const values: unknown[] = top ? this.#topValues : this.#innerValues;
    const predicted = top ? this.#topNext : this.#innerNext;
    let node = top ? this.#topShapes : this.#innerShapes;
    let seen = 0;
    let count = 0;
    let previous = FIRST;
    if (pos < limit && buf[pos] === CLOSE) {
      this.#pos = pos + 1;
      return {};
    }
    for (;;) {
      if (pos >= limit || buf[pos] !== QUOTE) return undefined;
      pos += 1;
      // Members mostly come in the same order: try the one that followed last time.
      let member = predicted[previous] as number;
      const expected = NAME_BYTES[member];
      let matched = expected !== undefined;
      if (expected !== undefined) {
        const length = expected.length;
        if (pos + length >= limit || buf[pos + length] !== QUOTE) matched = false;
        else {
          for (let i = 0; i < length; i += 1) {
            if (buf[pos + i] !== expected[i]) {
              matched = false;
              break;
            }
          }
        }
      }
      if (!matched) {
        member = this.#memberAt(pos);
        if (member < 0) return undefined;
        predicted[previous] = member;
      }
      pos += (NAME_BYTES[member] as Buffer).length + 1;
      const bit = 1 << member;
      if ((seen & bit) !== 0) return undefined;
      seen |= bit;
      previous = member;
      if (pos >= limit || buf[pos] !== COLON) return undefined;
      pos += 1;
      if (pos >= limit) return undefined;
      const first = buf[pos] as number;
      let value: unknown;
      if (first === QUOTE) {
        this.#pos = pos + 1;
        value = this.#string(!UNSHARED[member]);
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
      values[count] = value;
      count += 1;
      let child = node.next[member];
      if (child === undefined) {
        if (this.#shapes >= MAX_SHAPES) return undefined;
        this.#shapes += 1;
        child = shape([...node.members, member], FIRST);
        node.next[member] = child;
      }
      node = child;
      if (pos >= limit) return undefined;
      const next = buf[pos];
      if (next === CLOSE) {
        this.#pos = pos + 1;
        const envelopes = this.#envelopes;
        if (
          top &&
          (node === envelopes[0] || node === envelopes[1]) &&
          this.#splitEnvelope(values, count)
        ) {
          return SCANNED_ENVELOPE;
        }
        if (node.build === undefined) {
          node.build = compileBuilder(node.members.map((m) => NAMES[m] as string));
        }
        return node.build(values);
      }
      if (next !== COMMA) return undefined;
      pos += 1;
    }
  }

  /** The index in `NAMES` of the member name at `pos` (after its quote), or -1. */
  #memberAt(pos: number): number {
    const buf = this.#buf;
    for (let member = 0; member < FIRST; member += 1) {
      const name = NAME_BYTES[member] as Buffer;
      const length = name.length;
      if (pos + length >= this.#limit || buf[pos + length] !== QUOTE) continue;
      let i = 0;
      while (i < length && buf[pos + i] === name[i]) i += 1;
      if (i === length) return member;
    }
    return -1;
  }

  /** The string starting at `#pos` (after its opening quote), shared through the table if `share`. */
  #string(share: boolean): string | undefined {
    const buf = this.#buf;
    const limit = this.#limit;
    const start = this.#pos;
    let pos = start;
    let high = 0;
    for (;;) {
      if (pos >= limit) return undefined;
      const c = buf[pos] as number;
      if (c === QUOTE) break;
      // Escapes and raw control characters: let JSON.parse decide.
      if (c === BACKSLASH || c < 0x20) return undefined;
      high |= c;
      pos += 1;
    }
    this.#pos = pos + 1;
    const length = pos - start;
    if (high >= 0x80) this.ascii = false;
    if (!share || length > MAX_SHARED_LENGTH) return this.#decode(start, pos, high);
    // Hashed only when looked up: unshared strings (times, ids) are the longest.
    let hash = 0x811c9dc5;
    for (let i = start; i < pos; i += 1) hash = Math.imul(hash ^ (buf[i] as number), 0x01000193);
    const slot = (hash ^ (hash >>> TABLE_BITS)) & this.#mask;
    const slab = this.#slab;
    const at = slot * MAX_SHARED_LENGTH;
    if (this.#lengths[slot] === length + 1) {
      let i = 0;
      while (i < length && slab[at + i] === buf[start + i]) i += 1;
      if (i === length) return this.#texts[slot];
    }
    const text = this.#decode(start, pos, high);
    if (text !== undefined) {
      // A copy: the caller reuses its buffer.
      slab.set(buf.subarray(start, pos), at);
      this.#lengths[slot] = length + 1;
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
