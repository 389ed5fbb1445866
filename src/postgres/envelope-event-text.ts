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

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/** The index after the JSON value that starts at `from` (the text is valid JSON), or -1. */
const valueEnd = (text: string, from: number): number => {
  let depth = 0;
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      i = stringEnd(text, i);
      if (i < 0) return -1;
      if (depth === 0) return i;
      continue;
    }
    if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') {
      if (depth === 0) return i;
      depth -= 1;
      if (depth === 0) return i + 1;
    } else if (depth === 0 && (c === ',' || WHITESPACE.has(c ?? ''))) return i;
    i += 1;
  }
  return depth === 0 ? i : -1;
};

/** The index after the string whose opening quote is at `from`, or -1. */
const stringEnd = (text: string, from: number): number => {
  for (let i = from + 1; i < text.length; i += 1) {
    const c = text[i];
    if (c === '\\') i += 1;
    else if (c === '"') return i + 1;
  }
  return -1;
};

const skipWhitespace = (text: string, from: number): number => {
  let i = from;
  while (i < text.length && WHITESPACE.has(text[i] ?? '')) i += 1;
  return i;
};

/** The members of the top-level object of `text`: name and the source text of the value. */
const topLevelMembers = (text: string): Map<string, string> | undefined => {
  const members = new Map<string, string>();
  let i = skipWhitespace(text, 0);
  // A byte order mark before the first line's object is allowed by the reader.
  if (text.charCodeAt(i) === 0xfeff) i = skipWhitespace(text, i + 1);
  if (text[i] !== '{') return undefined;
  i = skipWhitespace(text, i + 1);
  if (text[i] === '}') return members;
  for (;;) {
    if (text[i] !== '"') return undefined;
    const nameEnd = stringEnd(text, i);
    if (nameEnd < 0) return undefined;
    let name: unknown;
    try {
      name = JSON.parse(text.slice(i, nameEnd));
    } catch {
      return undefined;
    }
    i = skipWhitespace(text, nameEnd);
    if (text[i] !== ':') return undefined;
    const start = skipWhitespace(text, i + 1);
    const end = valueEnd(text, start);
    if (end <= start) return undefined;
    members.set(String(name), text.slice(start, end));
    i = skipWhitespace(text, end);
    if (text[i] === '}') return members;
    if (text[i] !== ',') return undefined;
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
