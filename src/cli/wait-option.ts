/**
 * `--wait SECONDS` of `reconcile`, `forget` and `effects retry|skip`: how
 * long the process holding a log may take to take a request (and as long
 * again to be seen working on it) before the command gives up.
 */
import type { Flag, FlagMeta } from './flags.js';
import { integerOption } from './integer-option.js';

/** How long by default, in seconds. */
export const DEFAULT_WAIT_SECONDS = 10;

/** `--wait SECONDS`, a whole number of at least 1; `undefined` when not given. */
export const waitOption = (meta: FlagMeta): Flag<number | undefined> =>
  integerOption(meta, { min: 1, refuse: (flag) => `${flag} must be at least 1 second` });
