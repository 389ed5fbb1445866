// @ts-check
/** Delivery envelopes (deterministic times and ids) and fast buffered NDJSON output. */
import { closeSync, openSync, writeSync } from 'node:fs';
import { mulberry32, subSeed } from './seeded-random.js';

/**
 * @typedef {{ position: number, receivedAt: string, deliveryId: string, event: unknown }} Envelope
 */

/** @type {string[] | null} */
let HEX4 = null;
/** The 65,536 four-digit lower-case hex strings, built on first use. */
const hex4 = () => {
  if (HEX4 === null) {
    HEX4 = new Array(65536);
    for (let i = 0; i < 65536; i++) HEX4[i] = i.toString(16).padStart(4, '0');
  }
  return HEX4;
};

/**
 * A deterministic delivery clock and id source: `receivedAt` starts on a day derived
 * from the seed (in 2025) and advances by random gaps averaging `meanGapMs`;
 * `deliveryId` is `dlv-` followed by 16 hex digits.
 * @param {number} seed
 * @param {number} meanGapMs
 */
const deliveryClock = (seed, meanGapMs) => {
  const rng = mulberry32(subSeed(seed, 4));
  let ms = Date.UTC(2025, 0, 6, 8, 0, 0) + (subSeed(seed, 5) % 300) * 86_400_000;
  let isoSecond = -1;
  let isoPrefix = '';
  return {
    /** @returns {string} */
    next() {
      ms += Math.floor(-Math.log(1 - rng()) * meanGapMs);
      const second = Math.floor(ms / 1000);
      if (second !== isoSecond) {
        isoSecond = second;
        isoPrefix = new Date(second * 1000).toISOString().slice(0, 20); // "YYYY-MM-DDTHH:MM:SS."
      }
      const frac = ms - second * 1000;
      return `${isoPrefix}${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}Z`;
    },
    /** @returns {string} */
    id() {
      const hex = hex4();
      const a = (rng() * 4294967296) >>> 0;
      const b = (rng() * 4294967296) >>> 0;
      return `dlv-${hex[a >>> 16]}${hex[a & 0xffff]}${hex[b >>> 16]}${hex[b & 0xffff]}`;
    },
  };
};

/**
 * Wraps events in delivery envelopes
 * `{ position, receivedAt, deliveryId, event }`, positions counting up from
 * `startPosition`, times and ids deterministic from `seed`.
 * @param {Iterable<unknown>} events
 * @param {{ seed?: number, startPosition?: number, meanGapMs?: number }} [options]
 * @returns {Generator<Envelope, void, undefined>}
 */
export function* envelopes(events, { seed = 1, startPosition = 1, meanGapMs = 250 } = {}) {
  const clock = deliveryClock(seed, meanGapMs);
  let position = startPosition;
  for (const event of events) {
    yield { position: position++, receivedAt: clock.next(), deliveryId: clock.id(), event };
  }
}

/**
 * Writes bytes to a file descriptor, looping over partial writes.
 * @param {number} fd
 * @param {Buffer} data
 * @param {number} length
 */
const writeAll = (fd, data, length) => {
  let off = 0;
  while (off < length) off += writeSync(fd, data, off, length - off);
};

/**
 * Writes items as NDJSON (one JSON value per line, `\n`-terminated) with large
 * buffered synchronous writes. A string item is written verbatim as one line (for
 * pre-serialised or deliberately broken lines); any other item is `JSON.stringify`-ed.
 * With `envelope: true` each non-string item is wrapped as
 * `{"position":N,"receivedAt":"<ISO>","deliveryId":"dlv-…","event":{…}}` exactly as
 * {@link envelopes} would (string items are then still written verbatim and take no
 * position).
 * @param {string} path
 * @param {Iterable<unknown>} items
 * @param {{ envelope?: boolean, startPosition?: number, seed?: number, meanGapMs?: number }} [options]
 * @returns {{ lines: number, bytes: number }}
 */
export function writeNdjson(
  path,
  items,
  { envelope = false, startPosition = 1, seed = 1, meanGapMs = 250 } = {},
) {
  const SIZE = 4 * 1024 * 1024;
  const buffer = Buffer.allocUnsafe(SIZE);
  let used = 0;
  let lines = 0;
  let bytes = 0;
  const clock = envelope ? deliveryClock(seed, meanGapMs) : null;
  let position = startPosition;
  const fd = openSync(path, 'w');
  /** Encodes one line (plus `\n`) into the buffer, flushing it when it could overflow. */
  const put = (/** @type {string} */ line) => {
    const max = line.length * 3 + 1; // UTF-8 bytes, at most
    if (used + max > SIZE) {
      writeAll(fd, buffer, used);
      bytes += used;
      used = 0;
    }
    if (max > SIZE) {
      const data = Buffer.from(`${line}\n`, 'utf8');
      writeAll(fd, data, data.length);
      bytes += data.length;
    } else {
      used += buffer.write(line, used, 'utf8');
      buffer[used++] = 10;
    }
    lines++;
  };
  try {
    for (const item of items) {
      if (typeof item === 'string') put(item);
      else if (clock !== null) {
        put(
          `{"position":${position++},"receivedAt":"${clock.next()}","deliveryId":"${clock.id()}","event":${JSON.stringify(item)}}`,
        );
      } else put(JSON.stringify(item));
    }
    writeAll(fd, buffer, used);
    bytes += used;
  } finally {
    closeSync(fd);
  }
  return { lines, bytes };
}
