/**
 * What counts as a blank line, and how a line of other whitespace is
 * described. JSON's whitespace is space, tab, CR and LF (RFC 8259, section 2);
 * `String.prototype.trim` also drops NBSP, form and line feeds of other kinds,
 * U+2028, U+3000, the byte order mark…, so a reader that skipped what `trim`
 * empties would drop such lines without a trace. They are bad lines instead.
 */

const SPACE = 0x20;
const TAB = 0x09;
const CARRIAGE_RETURN = 0x0d;
const BYTE_ORDER_MARK = 0xfeff;

/** Whether `text` holds nothing but JSON whitespace (LF excluded: it ends the line). */
export const isBlankLine = (text: string): boolean => {
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c !== SPACE && c !== TAB && c !== CARRIAGE_RETURN) return false;
  }
  return true;
};

/** `U+00A0`: names a code point whatever it looks like (most of these are invisible). */
const codePoint = (c: number): string => `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The reason for a line `JSON.parse` refused when it is whitespace JSON does
 * not allow, or starts with a byte order mark (tolerated only at the start of
 * the file); `undefined` for any other line, which keeps the parser's message.
 * The parser's message would quote the very characters nobody can see.
 */
export const whitespaceReason = (text: string): string | undefined => {
  if (text.charCodeAt(0) === BYTE_ORDER_MARK) {
    return 'invalid JSON: a byte order mark (U+FEFF) is allowed only at the start of the file';
  }
  if (text.trim() !== '') return undefined;
  const others = new Set<string>();
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c !== SPACE && c !== TAB && c !== CARRIAGE_RETURN) others.add(codePoint(c));
  }
  return `invalid JSON: whitespace JSON does not allow (${[...others].join(', ')})`;
};
