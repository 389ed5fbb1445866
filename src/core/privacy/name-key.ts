/**
 * How the erasure ledger recognises a typed name without keeping it: a keyed
 * hash (HMAC-SHA-256 under a random key of the store, kept beside the
 * ledger, not in it) of the name in Unicode NFC. A copy of the ledger alone
 * cannot be searched for a name, since every guess needs the key; whoever
 * holds both the ledger and the key can test guessed names one at a time
 * (docs/privacy.md, "The ledger"). The core only compares: each store
 * computes the hash with its own key (node:crypto), so the core stays pure.
 */

/** The keyed hash of `name` (already in NFC), as lower-case hex; the same name gives the same text. */
export type NameKey = (name: string) => string;

const NAME_KEY = /^[0-9a-f]{64}$/;

/** Whether `text` has the form of a name's keyed hash (64 lower-case hex digits). */
export const isNameKey = (text: unknown): text is string =>
  typeof text === 'string' && NAME_KEY.test(text);

/** The text a name is hashed as: NFC, so that every spelling the CLI and the decoder accept compares equal. */
export const nameKeyInput = (name: string): string => name.normalize('NFC');
