/**
 * Letter-case folding limited to ASCII. `toLowerCase` alone would also fold
 * look-alikes such as the Kelvin sign (U+212A → "k"), letting text that is not
 * a listed value slip through as one.
 */

const ASCII_LETTERS = /^[A-Za-z]*$/;

/**
 * The listed value equal to `text` ignoring ASCII letter case, or `undefined`.
 * Listed values must be ASCII letters only.
 */
export const matchIgnoringAsciiCase = <V extends string>(
  text: string,
  values: readonly V[],
): V | undefined => {
  // Listed values are short; the length test keeps huge strings from being copied.
  if (text.length > 32 || !ASCII_LETTERS.test(text)) return undefined;
  const lower = text.toLowerCase();
  return values.find((value) => value.toLowerCase() === lower);
};

/**
 * A regular expression source that matches exactly the listed values in any
 * ASCII letter case, for JSON Schema `pattern`.
 */
export const caseInsensitivePattern = (values: readonly string[]): string => {
  const alternatives = values.map((value) =>
    [...value].map((c) => `[${c.toLowerCase()}${c.toUpperCase()}]`).join(''),
  );
  return `^(?:${alternatives.join('|')})$`;
};
