/**
 * Replaces chosen string values inside JSON text without touching any other
 * byte: the member order, the spacing, the escapes of every other string and
 * the spelling of every number stay as stored. Forgetting a name must change
 * the name and nothing else, so a rewritten log line keeps its position,
 * delivery id and everything a reader or a checksum could depend on. Pure.
 *
 * The scanner is iterative (a stack, not recursion), so a deeply nested
 * value cannot overflow the call stack.
 */

/** Where a value sits inside a JSON document: member names and array indexes from the root. */
export type JsonPath = readonly (string | number)[];

/** The key of a path in a {@link rewriteJsonStrings} replacement map. */
export const jsonPathKey = (path: JsonPath): string => JSON.stringify(path);

/** What {@link rewriteJsonStrings} made. */
export interface RewrittenJson {
  /** The text with the chosen strings replaced; the input itself when nothing was. */
  readonly text: string;
  /** How many string values were replaced. */
  readonly replaced: number;
}

interface Frame {
  readonly array: boolean;
}

const isSpace = (code: number): boolean =>
  code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The index just past the string token that starts (with its quote) at `start`. */
const stringEnd = (text: string, start: number): number => {
  let i = start + 1;
  for (;;) {
    const code = text.charCodeAt(i);
    if (Number.isNaN(code)) throw new SyntaxError('unterminated string');
    if (code === BACKSLASH) i += 2;
    else if (code === QUOTE) return i + 1;
    else i += 1;
  }
};

/**
 * `text` (one valid JSON value) with each string value whose path is a key
 * of `replacements` (made by {@link jsonPathKey}) replaced by the mapped
 * text, written as `JSON.stringify` writes it. Member names are never
 * replaced; a path that names no string value is ignored. When a member name
 * is repeated, every occurrence of it is replaced, so the value a lenient
 * parser keeps cannot be the old one. Text that is not valid JSON is
 * returned unchanged with `replaced: 0`: callers pass only text that parsed.
 */
export const rewriteJsonStrings = (
  text: string,
  replacements: ReadonlyMap<string, string>,
): RewrittenJson => {
  if (replacements.size === 0) return { text, replaced: 0 };
  try {
    return scan(text, replacements);
  } catch {
    return { text, replaced: 0 };
  }
};

const scan = (text: string, replacements: ReadonlyMap<string, string>): RewrittenJson => {
  const parts: string[] = [];
  let copiedUpTo = 0;
  let replaced = 0;
  const path: (string | number)[] = [];
  const stack: Frame[] = [];
  let i = 0;
  const skipSpace = (): void => {
    while (isSpace(text.charCodeAt(i))) i += 1;
  };
  const expect = (char: string): void => {
    skipSpace();
    if (text[i] !== char) throw new SyntaxError(`expected ${char}`);
    i += 1;
  };
  const readKey = (): void => {
    skipSpace();
    if (text.charCodeAt(i) !== QUOTE) throw new SyntaxError('expected a member name');
    const end = stringEnd(text, i);
    path.push(JSON.parse(text.slice(i, end)) as string);
    i = end;
    expect(':');
  };
  for (;;) {
    // A value starts here.
    skipSpace();
    const code = text.charCodeAt(i);
    let closedValue = true;
    if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
      const array = code === 0x5b;
      i += 1;
      skipSpace();
      const close = array ? ']' : '}';
      if (text[i] === close) {
        i += 1;
      } else {
        stack.push({ array });
        if (array) path.push(0);
        else readKey();
        closedValue = false;
      }
    } else if (code === QUOTE) {
      const end = stringEnd(text, i);
      const replacement = replacements.get(JSON.stringify(path));
      if (replacement !== undefined) {
        parts.push(text.slice(copiedUpTo, i), JSON.stringify(replacement));
        copiedUpTo = end;
        replaced += 1;
      }
      i = end;
    } else {
      // A number or a literal: runs to the next delimiter.
      const start = i;
      while (i < text.length && !',]}'.includes(text[i] as string) && !isSpace(text.charCodeAt(i)))
        i += 1;
      if (i === start) throw new SyntaxError('expected a value');
    }
    if (!closedValue) continue;
    // After a value: close containers until one has another element.
    for (;;) {
      const frame = stack.at(-1);
      if (frame === undefined) {
        skipSpace();
        if (i !== text.length) throw new SyntaxError('text after the value');
        if (replaced === 0) return { text, replaced };
        parts.push(text.slice(copiedUpTo));
        return { text: parts.join(''), replaced };
      }
      skipSpace();
      const next = text[i];
      i += 1;
      if (next === ',') {
        if (frame.array) path[path.length - 1] = (path.at(-1) as number) + 1;
        else {
          path.pop();
          readKey();
        }
        break;
      }
      if (next !== (frame.array ? ']' : '}')) throw new SyntaxError('expected , or a close');
      stack.pop();
      path.pop();
    }
  }
};
