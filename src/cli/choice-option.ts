/** Flags that take one of a few words: `--policy skip|halt`, `--scheme hmac|standard-webhooks`. */
import { usageError } from './cli-error.js';
import { type Flag, type FlagMeta, valueOption } from './flags.js';

/** A flag whose value is one of `choices`; `undefined` when not given, a usage error listing them otherwise. */
export const choiceOption = <const T extends string>(
  meta: FlagMeta,
  choices: readonly T[],
): Flag<T | undefined> =>
  valueOption(meta, (value, flag) => {
    const found = choices.find((choice) => choice === value);
    if (found === undefined) {
      throw usageError(`${flag} must be one of ${choices.join(', ')} (got '${value}')`);
    }
    return found;
  });
