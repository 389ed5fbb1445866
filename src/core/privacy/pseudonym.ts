/**
 * The text that replaces a forgotten person's names. It is random, not
 * derived from the name: a hash of a name can be reversed by trying names,
 * and a pseudonym must carry no part of what it replaces. The ledger keeps
 * it (with the ids, never the name) so a later forget of the same person,
 * or a late delivery, reuses it.
 */

/** Every pseudonym starts with this, so a reader sees at once that a name was erased. */
export const PSEUDONYM_PREFIX = 'forgotten-';

const PSEUDONYM = /^forgotten-[0-9a-f]{16}$/;

/**
 * A new pseudonym: `forgotten-` and 16 hex digits (64 random bits, from
 * `crypto.getRandomValues`, which Node and browsers both provide).
 */
export const newPseudonym = (): string => {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(8));
  return `${PSEUDONYM_PREFIX}${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
};

/** Whether `text` has the form {@link newPseudonym} makes. */
export const isPseudonym = (text: unknown): text is string =>
  typeof text === 'string' && PSEUDONYM.test(text);
