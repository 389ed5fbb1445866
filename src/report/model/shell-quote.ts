/** Quoting for command lines shown to be copied into a POSIX shell. */

const SAFE = /^[\w@%+=:,./-]+$/;

/** `word` as one shell word: as is when safe, else in single quotes. */
export const shellQuote = (word: string): string =>
  SAFE.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
