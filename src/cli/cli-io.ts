/**
 * What a command may touch of the outside world. Commands take this instead
 * of reaching for `process`, so tests can run them on in-memory streams and a
 * fake clock, and `main.ts` stays a thin shell around them.
 */

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

/** Writes `lines`, each followed by a newline. */
export const writeLines = (out: TextOutput, lines: readonly string[]): void => {
  if (lines.length > 0) out.write(`${lines.join('\n')}\n`);
};
