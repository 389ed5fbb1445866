/**
 * What a command may touch of the outside world. Commands take this instead
 * of reaching for `process`, so tests can run them on in-memory streams and a
 * fake clock, and `main.ts` stays a thin shell around them.
 */
import { visibleText } from '../core/visible-text.js';

/** The part of a writable stream the CLI uses. */
export interface TextOutput {
  write(text: string): unknown;
  /** `true` for a terminal; progress is only ever drawn on one. */
  readonly isTTY?: boolean;
}

/** Streams and clock of one CLI invocation. */
export interface CliIO {
  /** The result, and nothing else (it may be piped into another program). */
  readonly stdout: TextOutput;
  /** Errors and progress. */
  readonly stderr: TextOutput;
  /** Milliseconds from an arbitrary origin, for elapsed times and throttling. */
  readonly now: () => number;
  /** Print stack traces of unexpected errors (set by `SIGNFOLD_DEBUG=1`). */
  readonly debug?: boolean;
}

/**
 * Writes `lines`, each followed by a newline, through {@link visibleText}:
 * every line the CLI prints may quote data (a path, a name, a bad line), so
 * control characters and bidi overrides in it come out as `\uXXXX` escapes,
 * and a newline inside a line cannot start a line of its own.
 */
export const writeLines = (out: TextOutput, lines: readonly string[]): void => {
  if (lines.length > 0) out.write(`${lines.map(visibleText).join('\n')}\n`);
};

/**
 * Writes `value` as JSON (indented by `indent` spaces, or on one line) and a
 * newline. `JSON.stringify` escapes C0 controls but leaves DEL, C1 controls,
 * U+2028/U+2029 and bidi overrides raw; they can only occur inside JSON
 * strings, where {@link visibleText}'s `\uXXXX` is a valid escape of the very
 * same code point, so the document parses to the same value and is safe on a
 * terminal. JSON's own line breaks (with `indent`) are kept.
 */
export const writeJson = (out: TextOutput, value: unknown, indent?: number): void => {
  writeLines(out, JSON.stringify(value, null, indent).split('\n'));
};
