/**
 * The end of a split input, in a module of its own: the file reader's public
 * options name it (through `TornFragment`), and declarations that reach the
 * splitter would pull its `Buffer` signatures, hence `@types/node`, into every
 * TypeScript consumer of `signfold`.
 */

/** What is left after the last newline when the input ends. */
export type SplitTail =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'fragment';
      readonly line: number;
      /** Byte offset where the fragment starts, i.e. where the input would be cut to drop it. */
      readonly offset: number;
      readonly bytes: number;
      /** The decoded fragment; `undefined` when it is too long or not valid UTF-8 (then it is certainly not JSON). */
      readonly text: string | undefined;
      readonly preview: string;
    };
