/**
 * Canonical base64 (RFC 4648 §4, standard alphabet) checked by a single pass
 * over the characters: images can be megabytes, so nothing is decoded or
 * allocated, and no backtracking regular expression runs over the whole text.
 */

/** JSON Schema pattern equivalent to {@link base64Problem} accepting a string. */
export const BASE64_PATTERN =
  '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** 6-bit value of each ASCII code, or -1 for characters outside the alphabet. */
const VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

const EQUALS = 61;

const sextet = (code: number): number => (code < 128 ? (VALUE[code] ?? -1) : -1);

/**
 * Why `text` is not canonical base64, or `undefined` when it is. Canonical means:
 * length a multiple of 4, `=` only as the last one or two characters, no
 * whitespace or line breaks, and unused bits before the padding are zero, so that
 * every byte string has exactly one accepted encoding. The empty string is valid.
 */
export const base64Problem = (text: string): string | undefined => {
  const length = text.length;
  if (length % 4 !== 0) return `base64 length must be a multiple of 4, got ${length}`;
  let padding = 0;
  if (length > 0 && text.charCodeAt(length - 1) === EQUALS) {
    padding = text.charCodeAt(length - 2) === EQUALS ? 2 : 1;
  }
  const dataEnd = length - padding;
  for (let i = 0; i < dataEnd; i++) {
    if (sextet(text.charCodeAt(i)) < 0) {
      return `invalid base64 character ${JSON.stringify(text.charAt(i))} at offset ${i}`;
    }
  }
  if (padding > 0) {
    // With one '=' the last data character carries 2 unused bits, with two '=' it carries 4.
    const last = sextet(text.charCodeAt(dataEnd - 1));
    const unusedMask = padding === 2 ? 0b1111 : 0b11;
    if ((last & unusedMask) !== 0) {
      return 'non-canonical base64: the bits before the padding must be zero';
    }
  }
  return undefined;
};
