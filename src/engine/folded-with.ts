/**
 * What a fold was made with: the fold rules of the build, strict decoding,
 * and the upcasters. Two folds of one log agree when these agree, so a
 * snapshot records them and is refused by a projector that differs: the
 * snapshot's quarantine and state would otherwise outlive the rules that
 * made them (an event an upcaster now accepts would stay quarantined).
 */
import { FOLD_RULES_VERSION } from '../core/fold-rules.js';
import {
  type UpcasterFingerprint,
  upcasterFingerprint,
} from '../core/upcasters/upcaster-fingerprint.js';
import type { Upcaster } from '../core/upcasters/upcaster-types.js';

/** What a fold was made with (a snapshot's `foldedWith`). */
export interface FoldedWith {
  /** {@link FOLD_RULES_VERSION} of the build that folded. */
  readonly rules: number;
  /** Whether events were decoded in strict mode. */
  readonly strict: boolean;
  /** The upcasters, in order. */
  readonly upcasters: readonly UpcasterFingerprint[];
}

/** What a projector with these settings folds with. */
export const foldedWithOf = (strict: boolean, upcasters: readonly Upcaster[]): FoldedWith => ({
  rules: FOLD_RULES_VERSION,
  strict,
  upcasters: upcasters.map(upcasterFingerprint),
});

/**
 * What a snapshot without `foldedWith` (format versions 2 and 3, written
 * before snapshots recorded it) was made with: these rules, no upcasters,
 * lenient decoding, the only settings those versions' CLI could save under.
 */
export const FOLDED_BEFORE_RECORDING: FoldedWith = {
  rules: FOLD_RULES_VERSION,
  strict: false,
  upcasters: [],
};

const describeUpcasters = (upcasters: readonly UpcasterFingerprint[]): string =>
  upcasters.length === 0
    ? 'no upcasters'
    : `upcasters ${upcasters.map((u) => JSON.stringify(u.name)).join(', ')}`;

/** One line of the settings, for messages. */
export const describeFold = (fold: FoldedWith): string =>
  `fold rules ${fold.rules}, ${fold.strict ? 'strict' : 'lenient'} decoding, ${describeUpcasters(fold.upcasters)}`;

/**
 * Where `was` and `now` differ, in words (`undefined` when they agree): the
 * rules, the decoding mode, or the upcasters (also one of the same name whose
 * code changed).
 */
export const foldDifference = (was: FoldedWith, now: FoldedWith): string | undefined => {
  if (was.rules !== now.rules) return `fold rules ${was.rules}, not ${now.rules}`;
  if (was.strict !== now.strict) return `${was.strict ? 'strict' : 'lenient'} decoding`;
  const sameNames =
    was.upcasters.length === now.upcasters.length &&
    was.upcasters.every((u, i) => u.name === now.upcasters[i]?.name);
  if (!sameNames)
    return `${describeUpcasters(was.upcasters)}, not ${describeUpcasters(now.upcasters).replace(/^upcasters /, '')}`;
  const changed = was.upcasters.find((u, i) => u.source !== now.upcasters[i]?.source);
  if (changed !== undefined) return `upcaster ${JSON.stringify(changed.name)} as its code was then`;
  return undefined;
};
