/**
 * Erasing names from text that is not a valid event: the raw text of a bad
 * line, a string an effect copied a name into, a torn tail. There is no
 * member to look at, so a name is found by its characters, as stored: the
 * text itself (as given, NFC and NFD) and the escaped form `JSON.stringify`
 * writes, since a name with a control character, a NUL or a lone surrogate
 * is stored escaped in a JSON line.
 */

/** The names to erase from free text, and how to find them. */
export interface NamesToErase {
  /**
   * Names the user typed (`--name`): every occurrence is replaced, even
   * inside a longer word, because the user said exactly what to erase.
   */
  readonly typed: readonly string[];
  /**
   * Names found in the records of a forgotten id: replaced only where they
   * stand as a word of their own (no letter or digit on either side), so
   * forgetting "Al" does not rewrite "Alice".
   */
  readonly found: readonly string[];
}

/** What {@link eraseInText} made. */
export interface ErasedText {
  readonly text: string;
  /** How many occurrences were replaced. */
  readonly count: number;
}

const WORD = /[\p{L}\p{N}\p{M}]/u;

/**
 * The forms `names` may be stored in (as given, NFC, NFD, each also escaped
 * as JSON writes it, with lower- or upper-case hex), longest first so a
 * longer name is erased before a shorter one inside it.
 */
export const storedForms = (names: readonly string[]): string[] => {
  const forms = new Set<string>();
  for (const name of names) {
    for (const form of [name, name.normalize('NFC'), name.normalize('NFD')]) {
      if (form === '') continue;
      forms.add(form);
      const escaped = JSON.stringify(form).slice(1, -1);
      forms.add(escaped);
      forms.add(
        escaped.replace(/\\u([0-9a-f]{4})/g, (_, hex: string) => `\\u${hex.toUpperCase()}`),
      );
    }
  }
  return [...forms].sort((a, b) => b.length - a.length);
};

const codePointBefore = (text: string, index: number): string => {
  if (index === 0) return '';
  const low = text.charCodeAt(index - 1);
  const start = low >= 0xdc00 && low <= 0xdfff && index >= 2 ? index - 2 : index - 1;
  return String.fromCodePoint(text.codePointAt(start) ?? 0);
};

const codePointAt = (text: string, index: number): string =>
  index >= text.length ? '' : String.fromCodePoint(text.codePointAt(index) ?? 0);

/** Whether `form` at `index` stands as a word of its own. */
const standsAlone = (text: string, index: number, form: string): boolean =>
  !WORD.test(codePointBefore(text, index)) && !WORD.test(codePointAt(text, index + form.length));

const replaceForm = (
  text: string,
  form: string,
  pseudonym: string,
  bounded: boolean,
): ErasedText => {
  let index = text.indexOf(form);
  if (index < 0) return { text, count: 0 };
  const parts: string[] = [];
  let from = 0;
  let count = 0;
  while (index >= 0) {
    if (!bounded || standsAlone(text, index, form)) {
      parts.push(text.slice(from, index), pseudonym);
      from = index + form.length;
      count += 1;
      index = text.indexOf(form, from);
    } else {
      index = text.indexOf(form, index + 1);
    }
  }
  if (count === 0) return { text, count };
  parts.push(text.slice(from));
  return { text: parts.join(''), count };
};

/**
 * `text` with every stored form of `names` replaced by `pseudonym` (typed
 * names everywhere, found names where they stand alone), and how many
 * occurrences that was. The pseudonym needs no escaping in JSON, so a JSON
 * line stays JSON.
 */
export const eraseInText = (text: string, names: NamesToErase, pseudonym: string): ErasedText => {
  let result: ErasedText = { text, count: 0 };
  for (const [list, bounded] of [
    [names.typed, false],
    [names.found, true],
  ] as const) {
    for (const form of storedForms(list)) {
      const next = replaceForm(result.text, form, pseudonym, bounded);
      result = { text: next.text, count: result.count + next.count };
    }
  }
  return result;
};
