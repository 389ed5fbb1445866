/**
 * The one rule for text from data (log lines, names, ids, paths, messages
 * that quote them) on its way to a terminal or a page (the CLI and the HTML
 * report): code points that a terminal or a text layout would act on instead
 * of showing are written as visible `\uXXXX` escapes. Pure, so it lives
 * below both adapters. A log line holding `ESC [ 2 J` would otherwise clear the
 * reader's screen, a C1 `CSI` (U+009B) does the same on terminals that take
 * 8-bit controls, and a bidi override (U+202E) makes `check` output read
 * backwards, so a line can look like another.
 *
 * The `\uXXXX` form is chosen because it is also a JSON string escape: the
 * same function makes `--json` output safe on a terminal while the parsed
 * value stays the same code point for code point.
 */

/**
 * What is never printed from data: C0 controls (U+0000–U+001F, including
 * tab, CR and LF, which would break the one-line-per-record output), DEL and
 * the C1 controls (U+007F–U+009F), the line and paragraph separators and bidi
 * embeddings/overrides (U+2028–U+202E), and the bidi isolates (U+2066–U+2069).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069]/g;

const escapeCodePoint = (char: string): string =>
  `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `text` with every forbidden code point (see above) written as `\uXXXX`
 * (lowercase hex, as `JSON.stringify` writes U+001B): `"a\x1b[2J"` →
 * `a\u001b[2J`. Idempotent, since the escape itself is printable, so a
 * line may pass through it twice. Everything else, including a backslash
 * already in the data, is left as it is.
 */
export const visibleText = (text: string): string => text.replace(FORBIDDEN, escapeCodePoint);
