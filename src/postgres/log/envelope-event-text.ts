/**
 * The text of an envelope line's `event` member, exactly as the line writes
 * it. An import stores that text, not `JSON.stringify` of the parsed value:
 * `1e400` parses to Infinity, which `JSON.stringify` writes as `null`, and the
 * worker would then quarantine the event with another message than `replay`
 * of the file gives it (`got null` instead of `got non-finite number`).
 *
 * A line is an envelope by the file reader's rule (line-classifier.ts): its
 * top level is an object with a numeric `position` and an `event` member.
 * JSON.parse keeps the last of repeated members, so this does too.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** JSON's own whitespace: space, tab, LF, CR. */
const isWhitespace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** The index after the string whose opening quote is at `from`, or -1. */
const stringEnd = (text: string, from: number): number => {
  let quote = text.indexOf('"', from + 1);
  while (quote !== -1) {
    // A quote ends the string unless an odd number of backslashes precede it.
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
};

/** The index after the JSON value that starts at `from` (the text is valid JSON), or -1. */
const valueEnd = (text: string, from: number): number => {
  let depth = 0;
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i < 0 || depth === 0) return i;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth += 1;
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth === 0) return i;
      depth -= 1;
      if (depth === 0) return i + 1;
    } else if (depth === 0 && (c === COMMA || isWhitespace(c))) return i;
    i += 1;
  }
  return depth === 0 ? i : -1;
};

const skipWhitespace = (text: string, from: number): number => {
  let i = from;
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i += 1;
  return i;
};

/** A member name: its text between the quotes, decoded only when it has an escape. */
const nameOf = (text: string, start: number, end: number): string | undefined => {
  const inner = text.slice(start + 1, end - 1);
  if (!inner.includes('\\')) return inner;
  try {
    return String(JSON.parse(text.slice(start, end)));
  } catch {
    return undefined;
  }
};

/** The members of the top-level object of `text`: name and the source text of the value. */
const topLevelMembers = (text: string): Map<string, string> | undefined => {
  const members = new Map<string, string>();
  let i = skipWhitespace(text, 0);
  // A byte order mark before the first line's object is allowed by the reader.
  if (text.charCodeAt(i) === 0xfeff) i = skipWhitespace(text, i + 1);
  if (text.charCodeAt(i) !== OPEN_OBJECT) return undefined;
  i = skipWhitespace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_OBJECT) return members;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const nameEnd = stringEnd(text, i);
    if (nameEnd < 0) return undefined;
    const name = nameOf(text, i, nameEnd);
    if (name === undefined) return undefined;
    i = skipWhitespace(text, nameEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    const start = skipWhitespace(text, i + 1);
    const end = valueEnd(text, start);
    if (end <= start) return undefined;
    members.set(name, text.slice(start, end));
    i = skipWhitespace(text, end);
    if (text.charCodeAt(i) === CLOSE_OBJECT) return members;
    if (text.charCodeAt(i) !== COMMA) return undefined;
    i = skipWhitespace(text, i + 1);
  }
};

const NUMBER_START = /^-?[0-9]/;

/**
 * The source text of the `event` member when `line` is an envelope line;
 * `undefined` for a bare event (or text this cannot read, which a reader
 * never hands over).
 */
export const envelopeEventText = (line: string): string | undefined => {
  const members = topLevelMembers(line);
  const position = members?.get('position');
  if (position === undefined || !NUMBER_START.test(position)) return undefined;
  return members?.get('event');
};
