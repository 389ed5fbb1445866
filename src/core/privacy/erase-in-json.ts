/**
 * Erasing names from a JSON value whose shape signfold does not know: an
 * effect a reactor planned (it may copy a name into a message), a reactor's
 * state. Every string, member names included, goes through `eraseInText`.
 */
import { type ErasedText, eraseInText, type NamesToErase } from './erase-in-text.js';

/** What {@link eraseInJson} made. */
export interface ErasedJson {
  /** A new value where something was replaced; the same value where nothing was. */
  readonly value: unknown;
  /** How many occurrences were replaced. */
  readonly count: number;
}

/**
 * `value` (a parsed JSON value) with every occurrence of `names` in its
 * strings and member names replaced by `pseudonym`. The input is not changed.
 */
export const eraseInJson = (value: unknown, names: NamesToErase, pseudonym: string): ErasedJson => {
  let count = 0;
  const text = (input: string): string => {
    const erased: ErasedText = eraseInText(input, names, pseudonym);
    count += erased.count;
    return erased.text;
  };
  const walk = (input: unknown): unknown => {
    if (typeof input === 'string') return text(input);
    if (Array.isArray(input)) {
      const before = count;
      const output = input.map(walk);
      return count === before ? input : output;
    }
    if (typeof input === 'object' && input !== null) {
      const before = count;
      const output: Record<string, unknown> = {};
      for (const [key, member] of Object.entries(input)) {
        // defineProperty: a member named "__proto__" stays a member, not a prototype.
        Object.defineProperty(output, text(key), {
          value: walk(member),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return count === before ? input : output;
    }
    return input;
  };
  const erased = walk(value);
  return { value: erased, count };
};
