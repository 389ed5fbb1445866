/**
 * A fingerprint of what an upcaster does, as far as a pure function can
 * tell: its name and the source text of `from` and `to`. A snapshot records
 * the fingerprints of the upcasters it was folded with, so an upcaster that
 * changed under the same name still makes the snapshot stale. A rebuilt or
 * minified bundle changes the text without changing the behaviour: that
 * costs one replay from the start, never a wrong state.
 */
import type { Upcaster } from './upcaster-types.js';

/** What a snapshot records of one upcaster. */
export interface UpcasterFingerprint {
  /** The upcaster's name. */
  readonly name: string;
  /** `fnv1a32:` and 8 hex digits of the source text of `from` and `to`. */
  readonly source: string;
}

/** FNV-1a, 32 bits, over UTF-16 code units: not a security hash, only a change detector. */
const fnv1a32 = (text: string): string => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
};

/** The fingerprint of `upcaster`. */
export const upcasterFingerprint = (upcaster: Upcaster): UpcasterFingerprint => {
  const from = typeof upcaster.from === 'string' ? `type:${upcaster.from}` : String(upcaster.from);
  return {
    name: upcaster.name,
    source: `fnv1a32:${fnv1a32(`${from}\u0000${String(upcaster.to)}`)}`,
  };
};
