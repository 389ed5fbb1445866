/**
 * Objects of a known member sequence, made fast: the line scanner learns the
 * member sequences it meets (a trie of shapes) and makes each object with an
 * object literal compiled once per sequence, so every object of that shape is
 * made in one step with one hidden class (assigning computed names one by one
 * was several times slower than `JSON.parse`).
 */

/** Makes objects with the members of one sequence, in order, from their values. */
export type Builder = (values: readonly unknown[]) => Record<string, unknown>;

/**
 * A builder for the member `names`, in order. The names must come from a
 * fixed list of the caller's, never from input: they become source text.
 */
export const compileBuilder = (names: readonly string[]): Builder => {
  const body = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ');
  try {
    return new Function('v', `return { ${body} };`) as Builder;
  } catch {
    // Code generation disallowed (e.g. --disallow-code-generation-from-strings).
    return (values) => {
      const object: Record<string, unknown> = {};
      names.forEach((name, i) => {
        object[name] = values[i];
      });
      return object;
    };
  }
};

/** A node of the trie of member sequences seen so far (members are indices in a name list). */
export interface Shape {
  readonly members: readonly number[];
  /** The shape after one more member, by member index. */
  readonly next: (Shape | undefined)[];
  /** Compiled on first use. */
  build: Builder | undefined;
}

/** A new trie node for `members`, with room for `width` possible next members. */
export const shape = (members: readonly number[], width: number): Shape => ({
  members,
  next: new Array(width).fill(undefined),
  build: undefined,
});
