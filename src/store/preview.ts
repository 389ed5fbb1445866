/** Characters of a bad line kept in its `raw` member: enough to recognise it, small enough to log. */
export const PREVIEW_CHARS = 200;

/**
 * Shortens `text` to about {@link PREVIEW_CHARS} characters for a `bad-line`
 * record, never splitting a surrogate pair, and marks the cut with `…`.
 */
export const previewOf = (text: string): string => {
  if (text.length <= PREVIEW_CHARS) return text;
  let end = PREVIEW_CHARS;
  const code = text.charCodeAt(end - 1);
  // A high surrogate at the cut would leave a lone half of a pair.
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
};
