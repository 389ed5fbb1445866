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
// Four bytes at a time (the tests of "some byte is zero / is less than n" on a word; exact as
// yes-or-no): a word of four bytes a string holds as they are (0x20–0x7f but `"` and `\`) needs
// no byte's look.
const ONES = 0x01010101;
const HIGHS = 0x80808080 | 0;
const SPACES = 0x20202020;
const QUOTES = 0x22222222;
const BACKSLASHES = 0x5c5c5c5c;

/** Whether the word `x` has a byte that needs its own look: `"`, `\`, below 0x20 or above 0x7f. */
const special = (x: number): boolean => {
  const quote = x ^ QUOTES;
  const backslash = x ^ BACKSLASHES;
  return (
    ((x | ((x - SPACES) & ~x) | ((quote - ONES) & ~quote) | ((backslash - ONES) & ~backslash)) &
      HIGHS) !==
    0
  );
};

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
 * Each name's bytes as little-endian 32-bit words (the whole words only; the last 0–3 bytes are
 * compared one by one): a name is matched four bytes at a time.
 */
const NAME_WORDS = NAME_BYTES.map((bytes) => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const words = new Int32Array(bytes.length >>> 2);
  for (let w = 0; w < words.length; w += 1) words[w] = view.getInt32(w * 4, true);
  return words;
});
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
  /** `#buf`'s bytes, read four at a time. */
  #view: DataView = new DataView(new ArrayBuffer(0));
  /** `#slab`'s bytes, read four at a time. */
  #slabView: DataView = new DataView(this.#slab.buffer);
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
    if (buf !== this.#buf) {
      this.#buf = buf;
      this.#view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    }
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
    this.#slabView = new DataView(this.#slab.buffer);
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
      if (member < 0 || !this.#nameAt(pos, member)) {
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
    for (let member = 0; member < FIRST; member += 1) if (this.#nameAt(pos, member)) return member;
    return -1;
  }

  /** Whether the member name at `pos` (after its quote) is `NAMES[member]`, closing quote included. */
  #nameAt(pos: number, member: number): boolean {
    const buf = this.#buf;
    const name = NAME_BYTES[member] as Buffer;
    const length = name.length;
    if (pos + length >= this.#limit || buf[pos + length] !== QUOTE) return false;
    const words = NAME_WORDS[member] as Int32Array;
    const view = this.#view;
    // In bounds: the closing quote is at `pos + length`, below the limit.
    for (let w = 0; w < words.length; w += 1) {
      if (view.getInt32(pos + w * 4, true) !== words[w]) return false;
    }
    for (let i = words.length * 4; i < length; i += 1) if (buf[pos + i] !== name[i]) return false;
    return true;
  }

  /** The string starting at `#pos` (after its opening quote), shared through the table if `share`. */
  #string(share: boolean): string | undefined {
    const buf = this.#buf;
    const limit = this.#limit;
    const start = this.#pos;
    let pos = start;
    let high = 0;
    // Hashed in the same pass that finds the closing quote, and only when it may be looked up:
    // unshared strings (times, ids) are the longest. Plain ASCII goes four bytes at a time (the
    // hash too, a word at a time: still a function of the bytes alone, since where the words
    // stop depends only on them); from the first word that holds anything else, byte by byte.
    let hash = 0x811c9dc5;
    const view = this.#view;
    while (pos + 4 <= limit) {
      const word = view.getInt32(pos, true);
      if (special(word)) break;
      if (share) hash = Math.imul(hash ^ word, 0x01000193);
      pos += 4;
    }
    for (;;) {
      if (pos >= limit) return undefined;
      const c = buf[pos] as number;
      if (c === QUOTE) break;
      // Escapes and raw control characters: let JSON.parse decide.
      if (c === BACKSLASH || c < 0x20) return undefined;
      high |= c;
      if (share) hash = Math.imul(hash ^ c, 0x01000193);
      pos += 1;
    }
    this.#pos = pos + 1;
    const length = pos - start;
    if (high >= 0x80) this.ascii = false;
    if (!share || length > MAX_SHARED_LENGTH) return this.#decode(start, pos, high);
    const slot = (hash ^ (hash >>> TABLE_BITS)) & this.#mask;
    const slab = this.#slab;
    const at = slot * MAX_SHARED_LENGTH;
    if (this.#lengths[slot] === length + 1 && this.#sameBytes(at, start, length)) {
      return this.#texts[slot];
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

  /** Whether the slab's bytes at `at` are `#buf`'s `length` bytes at `start`. */
  #sameBytes(at: number, start: number, length: number): boolean {
    const slabView = this.#slabView;
    const view = this.#view;
    let i = 0;
    for (; i + 4 <= length; i += 4) {
      if (slabView.getInt32(at + i, true) !== view.getInt32(start + i, true)) return false;
    }
    const slab = this.#slab;
    const buf = this.#buf;
    for (; i < length; i += 1) if (slab[at + i] !== buf[start + i]) return false;
    return true;
  }

  #decode(start: number, end: number, high: number): string | undefined {
    if (high < 0x80) return this.#buf.toString('latin1', start, end);
    const text = this.#buf.toString('utf8', start, end);
    // Invalid UTF-8 (or a real U+FFFD): the slow path validates the line precisely.
    return text.includes(REPLACEMENT_CHAR) ? undefined : text;
  }
}
